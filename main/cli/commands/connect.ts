/**
 * `npm run cli -- connect --subscription <url|file> [--server <id|name>] [--http-port N]
 * [--socks-port N] [--core PATH] [--probe] [--verbose]`: fetches and parses the subscription,
 * connects through the first server the core can run (or the named one), prints the local proxy
 * addresses on their own lines, then the tunnel's events, until Ctrl-C or SIGTERM disconnects
 * cleanly (no core left behind). Exit 0 after a clean disconnect, 1 when it cannot connect, 2 on
 * a usage error.
 *
 * `--mode system-wide` (Linux, as root) also captures every program's traffic into the tunnel and
 * prints what it applied; Ctrl-C or SIGTERM removes it before the command exits.
 *
 * `buildHeadless` is the reusable part: core + servers + tunnel + prober from options, for
 * commands that add more on top (Auto).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '../../../shared/domain/server';
import { CONNECTION_MODES, type ConnectionMode, DEFAULT_SETTINGS } from '../../../shared/settings';
import { type CoreProfile, coreLabel, detectCore, locateCore, unsupportedReason } from '../../../app/core';
import { type LogLevel, Logger, stderrSink } from '../../../app/log/logger';
import { defaultDataDir } from '../../../app/paths';
import { HttpSubscriptionFetcher } from '../../../app/subscriptions/fetch';
import { assignIds } from '../../../app/subscriptions/identity';
import { parseSubscription } from '../../../app/subscriptions/parse';
import { TunnelController } from '../../../app/tunnel/controller';
import { CoreProber } from '../../../app/tunnel/prober';
import { coreCanCapture } from '../../../app/system-wide/core-privilege';
import { DEFAULT_CORE_MARK } from '../../../app/system-wide/linux/policy/capture-plan';
import { SystemWideCapture } from '../../../app/system-wide/system-wide';
import { checkoutHelperLaunch } from '../../helper/launch';

const USAGE =
  'usage: npm run cli -- connect --subscription <url|file> [--server <id|name>] [--http-port N] [--socks-port N] [--core PATH] [--mode proxy|system-wide] [--probe] [--verbose]';

export interface HeadlessOptions {
  /** A subscription URL or a file holding one's body. */
  subscription: string;
  httpPort?: number;
  socksPort?: number;
  /** The core binary; default: bundled resources, then PATH. */
  corePath?: string | null;
  /** Where configs are written (default: the app data folder's `runtime`). */
  runtimeDir?: string;
  /** Start the prober with every server of the subscription. */
  probe?: boolean;
  /** `system-wide` captures the machine's traffic (Linux, root); default `proxy`. */
  mode?: ConnectionMode;
}

export interface Headless {
  core: CoreProfile;
  servers: Server[];
  tunnel: TunnelController;
  prober: CoreProber;
  /** System-wide capture (present in every mode; it acts only in `system-wide`). */
  capture: SystemWideCapture;
  logger: Logger;
  /** Disconnects the tunnel and stops the prober: no core is left running. */
  close(): Promise<void>;
}

/** Usage errors and failures worth a sentence, not a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export async function buildHeadless(options: HeadlessOptions, logger: Logger): Promise<Headless> {
  const found = await locateCore({ settingPath: options.corePath ?? null, resourcesDir: repositoryResources() });
  if ('error' in found) throw new CliError(found.error);
  const core = await detectCore(found.path);
  const servers = await loadServers(options.subscription, logger);
  const runtimeDir = options.runtimeDir ?? join(defaultDataDir(), 'runtime');
  const capture = new SystemWideCapture({ dataDir: defaultDataDir(), logger, launch: checkoutHelperLaunch, corePath: core.path });
  capture.setMode(options.mode ?? 'proxy');
  // A run killed together with its helper left capture behind: take it away before anything else.
  await capture.recoverAfterCrash();
  const tunnel = new TunnelController({
    core,
    runtimeDir,
    logger,
    httpPort: options.httpPort ?? DEFAULT_SETTINGS.httpPort,
    socksPort: options.socksPort ?? DEFAULT_SETTINGS.socksPort,
    transparent: () => capture.transparentFor(),
  });
  const unbindCapture = capture.bind(tunnel);
  // Probes leave beside system-wide capture, each straight to its server (see the engine).
  const prober = new CoreProber({ core, runtimeDir, logger, outboundMark: (await coreCanCapture(core.path)) ? DEFAULT_CORE_MARK : undefined });
  if (options.probe) prober.setServers(servers);
  return {
    core,
    servers,
    tunnel,
    prober,
    capture,
    logger,
    close: async () => {
      await Promise.allSettled([tunnel.disconnect(), prober.close()]);
      await capture.end();
      unbindCapture();
    },
  };
}

/** The servers of a subscription URL or file, with ids as a subscription update gives them. */
export async function loadServers(source: string, logger: Logger): Promise<Server[]> {
  let body: Buffer;
  if (/^https?:\/\//i.test(source)) {
    logger.redactor.add(source);
    const fetcher = new HttpSubscriptionFetcher();
    try {
      const outcome = await fetcher.fetch(source);
      if (!outcome.ok) throw new CliError(`could not fetch the subscription: ${outcome.message}`);
      body = outcome.body;
    } finally {
      await fetcher.close();
    }
  } else {
    try {
      body = await readFile(source);
    } catch (error) {
      throw new CliError(`could not read ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  const parsed = parseSubscription(body);
  for (const rejected of parsed.rejected) logger.warn('TUNNEL', `subscription entry ${rejected.line} skipped: ${rejected.reason}`);
  if (parsed.servers.length === 0) throw new CliError('the subscription holds no server this app can read');
  return assignIds('cli', [], parsed.servers);
}

/** The named server (id, exact name, then a unique part of a name), or the first one the core can run. */
export function chooseServer(servers: readonly Server[], core: CoreProfile, wanted?: string): Server {
  const viaOf = (s: Server) => (s.via ? servers.find((v) => v.id === s.via) : undefined);
  if (wanted) {
    const exact = servers.find((s) => s.id === wanted) ?? servers.find((s) => s.name === wanted);
    if (exact) return exact;
    const partial = servers.filter((s) => s.name.toLowerCase().includes(wanted.toLowerCase()));
    if (partial.length === 1) return partial[0] as Server;
    if (partial.length > 1) throw new CliError(`"${wanted}" matches ${partial.length} servers: ${partial.map((s) => `${s.id} (${s.name})`).join(', ')}`, 2);
    throw new CliError(`no server "${wanted}" in the subscription; servers: ${servers.map((s) => `${s.id} (${s.name})`).join(', ')}`, 2);
  }
  const runnable = servers.find((s) => !unsupportedReason(s, core, viaOf(s)));
  if (!runnable) throw new CliError(`none of the ${servers.length} servers can run on ${coreLabel(core)}`);
  return runnable;
}

interface ParsedArgs {
  subscription: string;
  server?: string;
  httpPort?: number;
  socksPort?: number;
  corePath?: string;
  probe: boolean;
  verbose: boolean;
  mode?: ConnectionMode;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const out: Partial<ParsedArgs> & { probe: boolean; verbose: boolean } = { probe: false, verbose: false };
  const port = (flag: string, value: string | undefined) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new CliError(`${flag} needs a port number (1-65535), got "${value ?? ''}"\n${USAGE}`, 2);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    const takeValue = () => {
      if (value === undefined || value.startsWith('--')) throw new CliError(`${flag} needs a value\n${USAGE}`, 2);
      i++;
      return value;
    };
    switch (flag) {
      case '--subscription':
        out.subscription = takeValue();
        break;
      case '--server':
        out.server = takeValue();
        break;
      case '--http-port':
        out.httpPort = port(flag, takeValue());
        break;
      case '--socks-port':
        out.socksPort = port(flag, takeValue());
        break;
      case '--core':
        out.corePath = takeValue();
        break;
      case '--mode': {
        const mode = takeValue();
        if (mode === 'system-proxy') throw new CliError('--mode system-proxy is the desktop app\'s; the CLI runs proxy or system-wide', 2);
        if (!(CONNECTION_MODES as readonly string[]).includes(mode)) throw new CliError(`--mode is proxy or system-wide, got "${mode}"\n${USAGE}`, 2);
        out.mode = mode as ConnectionMode;
        break;
      }
      case '--probe':
        out.probe = true;
        break;
      case '--verbose':
        out.verbose = true;
        break;
      default:
        throw new CliError(`unknown option ${flag}\n${USAGE}`, 2);
    }
  }
  if (!out.subscription) throw new CliError(USAGE, 2);
  if (out.httpPort !== undefined && out.httpPort === out.socksPort) throw new CliError('--http-port and --socks-port must differ', 2);
  return out as ParsedArgs;
}

export async function run(argv: string[]): Promise<number> {
  // With Auto the whole engine runs (monitor, Auto, reachability): its own command file.
  if (argv.includes('--auto')) return (await import('./connect-auto')).runAuto(argv);
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    console.error((error as Error).message);
    return error instanceof CliError ? error.exitCode : 2;
  }
  const level: LogLevel = args.verbose ? 'debug' : 'info';
  const logger = new Logger({ level, sinks: [stderrSink] });
  let headless: Headless | null = null;
  const stopped = waitForStopSignal();
  try {
    headless = await buildHeadless({ ...args, probe: args.probe }, logger);
    const { tunnel, core } = headless;
    const server = chooseServer(headless.servers, core, args.server);
    printEvents(headless);
    const state = await tunnel.connect(server, server.via ? headless.servers.find((s) => s.id === server.via) : undefined);
    console.log(`connected to ${server.name} [${server.id}] with ${coreLabel(core)}; Ctrl-C disconnects`);
    console.log(state.httpProxy);
    console.log(state.socksProxy);
    if (args.mode === 'system-wide') await reportCapture(headless.capture);
    const signal = await stopped.promise;
    console.log(`${signal}: disconnecting`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return error instanceof CliError ? error.exitCode : 1;
  } finally {
    stopped.dispose();
    await headless?.close();
  }
}

/** Says what system-wide mode applied once it is in (the rules follow the core's start). */
export async function reportCapture(capture: SystemWideCapture): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!capture.status().active && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const status = capture.status();
  console.log(status.active ? `system-wide: applied ${status.detail ?? ''}` : 'system-wide: capture is not in place (see the log above)');
  capture.onChange((next) => console.log(next.active ? `system-wide: applied again ${next.detail ?? ''}` : 'system-wide: capture removed'));
}

function printEvents({ tunnel, prober, servers }: Headless): void {
  const name = (id: string | null) => servers.find((s) => s.id === id)?.name ?? id ?? '-';
  tunnel.on('state', (s) => console.log(`state: ${s.state}${s.serverId ? ` (${name(s.serverId)})` : ''}${s.error ? `: ${s.error}` : ''}`));
  tunnel.on('dialFailure', (f) => console.log(`dial failure: ${f.kind} ${f.address ?? ''} (${name(f.serverId)}): ${f.detail}`));
  tunnel.on('coreExit', (e) => console.log(`core exit: ${e.description}; restart ${e.attempt} in ${e.restartInMs} ms`));
  tunnel.on('restarted', (e) => console.log(`core restarted after ${e.downMs} ms down`));
  prober.on('rebuilt', (e) => console.log(`prober: ${e.servers} servers up (${e.unsupported} not runnable) in ${e.startMs} ms`));
  // Traffic is sampled every 250 ms; a line every 5 s (when something moved) is enough to read.
  let up = 0;
  let down = 0;
  let since = Date.now();
  tunnel.on('traffic', (t) => {
    up += t.upBytes;
    down += t.downBytes;
    if (t.at - since < 5000) return;
    if (up + down > 0) console.log(`traffic: ↑ ${formatBytes(up)} ↓ ${formatBytes(down)} in ${((t.at - since) / 1000).toFixed(1)} s`);
    up = 0;
    down = 0;
    since = t.at;
  });
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

export function waitForStopSignal(): { promise: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => resolve(signal);
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    promise,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The repository's resources/ (bundled cores in development). */
export function repositoryResources(): string {
  return fileURLToPath(new URL('../../../resources', import.meta.url));
}
