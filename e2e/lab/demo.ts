/**
 * `npm run demo`, until the UI exists: starts the lab (the demo's default world) and says what it
 * started, then runs until Ctrl-C. Flags are the lab's (`npm run demo -- --servers 30`).
 */
import { startLab } from './lab';
import { parseLabArgs } from './options';
import type { LabInfo } from './types';

function summary(info: LabInfo): string {
  const lines = [
    'Steadfast VPN demo world (the lab) is running on loopback.',
    '',
    `  Subscriptions (paste one into the app):`,
    ...info.subscriptions.map((s) => `    ${s.id}  ${s.url}`),
    '',
    `  Servers (${info.servers.length}; each dialled through its fault relay, each leaving from its own exit IP):`,
    ...info.servers.map((s) => `    ${s.id.padEnd(4)} ${s.protocol.padEnd(12)} ${s.relay.padEnd(22)} exit ${s.exitIp.padEnd(13)} ${s.country}  ${s.latencyMs} ms`),
    '',
    `  URL test target:   ${info.target}`,
    `  IP info (ipapi):   ${info.ipinfo}`,
    `  Download:          ${info.download}?bytes=N`,
    `  Control API:       ${info.control}  (GET /state, POST /servers/:id {"fault":"blackhole"}, POST /network {"state":"offline"}, …)`,
    '',
    '  Try:  curl -s -XPOST ' + `${info.control}/servers/${info.servers[0]?.id ?? 'A1'} -d '{"fault":"blackhole"}'`,
    '',
    'Press Ctrl-C to stop (every process and port is cleaned up).',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { options } = parseLabArgs(process.argv.slice(2).filter((a) => a !== '--selftest'));
  const lab = await startLab(options);
  console.log(summary(lab.info));
  console.log('');
  console.log(JSON.stringify(lab.info));
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping the lab…');
    lab.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
