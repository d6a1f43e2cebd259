/**
 * `npm run headless -- [--subscription URL …] [--open LINK …] [--port N] [--data-dir DIR] [--test-url URL …]`:
 * the engine with the UI served to a browser instead of an Electron window. Prints the URL to
 * open (with this run's token) on a line of its own; Ctrl-C, SIGTERM or the end of the program
 * that started it stops everything. `--open` takes a panel's "add to app" link (hiddify://,
 * v2rayn://, …): the page asks before adding it.
 */
import { fileURLToPath } from 'node:url';
import { createEngine, type Engine } from '../../app/engine';
import { Logger, stderrSink } from '../../app/log/logger';
import { defaultDataDir } from '../../app/paths';
import { untilStopped } from '../../app/process/until-stopped';
import { portOption, readOptions } from '../args';
import { type HeadlessHost, startHeadlessHost } from './host';
import { ensureRendererBuilt, RENDERER_DIST } from './renderer-build';
import { checkoutHelperLaunch } from '../helper/launch';

interface Args {
  subscriptions: string[];
  port: number;
  dataDir: string;
  testUrls: string[];
  links: string[];
}

const USAGE = 'usage: npm run headless -- [--subscription URL …] [--open LINK …] [--port N] [--data-dir DIR] [--test-url URL …]';

function parseArgs(argv: readonly string[]): Args {
  const { values } = readOptions(
    argv,
    {
      subscription: { type: 'string', multiple: true },
      open: { type: 'string', multiple: true },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'test-url': { type: 'string', multiple: true },
    },
    USAGE,
  );
  const port = values.port === '0' ? 0 : (portOption('--port', values.port) ?? 0);
  return {
    subscriptions: values.subscription ?? [],
    port,
    dataDir: values['data-dir'] ?? defaultDataDir(),
    testUrls: values['test-url'] ?? [],
    links: values.open ?? [],
  };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const logger = new Logger({ sinks: [stderrSink] });
  await ensureRendererBuilt((line) => logger.info('HOST', line));
  let engine: Engine | null = null;
  let host: HeadlessHost | null = null;
  const stop = untilStopped();
  try {
    engine = await createEngine({
      dataDir: args.dataDir,
      resourcesDir: fileURLToPath(new URL('../../resources', import.meta.url)),
      logger,
      captureHelper: checkoutHelperLaunch,
      settingsOverrides: args.testUrls.length > 0 ? { monitor: { urls: args.testUrls } } : undefined,
    });
    for (const url of args.subscriptions) {
      const subscription = await engine.addSubscription({ url });
      logger.info('HOST', `subscription ${subscription.name}: ${subscription.servers.length} server(s)${subscription.lastError ? `; ${subscription.lastError}` : ''}`);
    }
    for (const link of args.links) engine.offerLink(link);
    host = await startHeadlessHost({ service: engine, rendererDir: RENDERER_DIST, port: args.port, logger });
    console.log('Open the app in a browser (this address carries the access token; do not share it):');
    console.log(host.url);
    logger.info('HOST', `stopping: ${await stop.stopped}`);
    return 0;
  } finally {
    stop.dispose();
    await host?.close();
    await engine?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
