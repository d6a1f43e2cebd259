/**
 * `npm run demo`: the app against the lab, in a browser. Starts the lab (12 servers in 3
 * subscriptions, each with its own exit IP and country), the engine with Auto on, and the UI; prints
 * the address to open on a line of its own and opens it when a desktop is there. The Lab panel in
 * the UI blackholes servers, cuts the network or blocks a server "here". Ctrl-C (or the end of the program that
 * started it) stops everything.
 */
import { spawn } from 'node:child_process';
import { Logger } from '../../app/log/logger';
import { untilStopped } from '../../app/process/until-stopped';
import { startDemo } from './world';

async function main(): Promise<void> {
  // The full log goes to app.log in the demo's data folder; the terminal gets only what needs a look.
  const logger = new Logger({
    sinks: [(record, line) => (record.level === 'warning' || record.level === 'error' || record.tag === 'DEMO' ? process.stderr.write(`${line}\n`) : undefined)],
  });
  const demo = await startDemo({ logger });
  console.log('Steadfast VPN demo: the app is running against the lab (a small internet on loopback).');
  console.log('Open this address in a browser (it carries this run\'s access token):');
  console.log(demo.host.url);
  console.log(`Full log: ${demo.dataDir}/app.log`);
  console.log('In the app: watch pings, exit IPs and countries arrive; use the Lab panel to blackhole the current server and see Auto switch. Ctrl-C stops the demo.');
  openBrowser(demo.host.url);
  const stop = untilStopped();
  logger.info('DEMO', `${await stop.stopped}: stopping`);
  stop.dispose();
  await demo.stop();
}

/** Best effort: a desktop session opens the UI itself; elsewhere the printed address is enough. */
function openBrowser(url: string): void {
  if (process.env.CI || process.env.STEADFAST_NO_BROWSER) return;
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
