/**
 * `npm run headless -- [--subscription URL …] [--open LINK …] [--port N] [--data-dir DIR] [--test-url URL …] [--settings FILE]`:
 * the engine with the UI served to a browser instead of an Electron window. Prints the URL to
 * open (with this run's token) on a line of its own; Ctrl-C, SIGTERM or the end of the program
 * that started it stops everything. `--open` takes a panel's "add to app" link (hiddify://,
 * v2rayn://, …): the page asks before adding it. `--settings FILE` is a settings patch applied at
 * start (options.ts). A bad option or settings file exits with code 2 before anything starts.
 */
import { fileURLToPath } from 'node:url';
import { createEngine, type Engine } from '../../app/engine';
import { Logger, stderrSink } from '../../app/log/logger';
import { untilStopped } from '../../app/process/until-stopped';
import { UsageError } from '../args';
import { type HeadlessHost, startHeadlessHost } from './host';
import { readHeadlessArgs } from './options';
import { ensureRendererBuilt, RENDERER_DIST } from './renderer-build';
import { checkoutHelperLaunch } from '../helper/launch';

async function main(): Promise<number> {
  const args = await readHeadlessArgs(process.argv.slice(2));
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
      settingsOverrides: args.settingsOverrides,
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
    process.exit(error instanceof UsageError ? error.exitCode : 1);
  },
);
