/**
 * `npm run cli -- connect --subscription <url|file> [--server <id|name>] [--http-port N]
 * [--socks-port N] [--core xray|v2ray|PATH] [--routing FILE] [--probe] [--verbose]`: fetches and parses the subscription,
 * connects through the first server the core can run (or the named one), prints the local proxy
 * addresses on their own lines, then the tunnel's events, until Ctrl-C or SIGTERM disconnects
 * cleanly (no core left behind). `--routing FILE` routes as the file's `routing` (and `dns`)
 * sections say (routing-file.ts); without it everything goes through the server. Exit 0 after a clean disconnect, 1 when it cannot connect, 2 on
 * a usage error.
 *
 * `--mode system-wide` (Linux, as root) also captures every program's traffic into the tunnel and
 * prints what it applied; Ctrl-C or SIGTERM removes it before the command exits. `--capture tun`
 * captures with sing-box's TUN device instead of nftables TPROXY (`--capture tproxy`, the default);
 * its DNS is asked of the routing file's remote resolver.
 *
 * `--kill-switch` (Linux, as root) lets nothing leave the machine but to the subscription's
 * servers and over the tunnel (`--kill-switch-allow-lan`: and to the LAN), and it stays in force
 * after the command ends, until `npm run cli -- kill-switch off`.
 * `--share ADDRESS` also offers the proxies on that private LAN address of this machine behind the
 * household's username and password (made on first use, kept 0600 in the CLI's data folder; the
 * line printed names the file, never the password), and prints each refused login.
 *
 * (`connect --auto` runs the whole engine instead: connect-auto.ts.)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Server } from '../../../shared/domain/server';
import { DEFAULT_DNS } from '../../../shared/routing';
import { type ConnectionMode, DEFAULT_SETTINGS, type SystemWideCaptureMethod } from '../../../shared/settings';
import { chooseCarrier, type CoreProfile, coreLabel } from '../../../app/core';
import { captureFollowedTunnel, findCore, probeOutboundMark, startCapture } from '../../../app/engine/core-pieces';
import { type LogLevel, Logger, stderrSink } from '../../../app/log/logger';
import { defaultDataDir } from '../../../app/paths';
import { assignIds } from '../../../app/subscriptions/identity';
import { parseSubscription } from '../../../app/subscriptions/parse';
import type { TunnelController } from '../../../app/tunnel/controller';
import { CarrierProber } from '../../../app/tunnel/carrier-prober';
import { tunnelPorts } from '../../../app/engine/settings-changes';
import { SharingCredentialsFile } from '../../../app/sharing/credentials';
import { sharingAddressProblem } from '../../../shared/sharing';
import { appEntryOf, DEFAULT_PER_APP, type PerAppSettings } from '../../../shared/per-app';
import type { SystemWide } from '../../../app/system-wide/for-platform';
import { checkoutHelperLaunch } from '../../helper/launch';
import { untilStopped } from '../../../app/process/until-stopped';
import { coreOption, portOption, readOptions, UsageError } from '../../args';
import { appFetcher } from '../../../app/subscriptions/app-fetcher';
import { CliError, cliCapture, cliDataDir, cliKillSwitch, cliMode, engageKillSwitch, leaveKillSwitch, reportCapture, repositoryResources } from '../support';
import type { KillSwitch } from '../../../app/system-wide/kill-switch/kill-switch';
import { RoutingService } from '../../../app/routing/service';
import { type RoutingFile, readRoutingFile } from './routing-file';

const USAGE =
  'usage: npm run cli -- connect --subscription <url|file> [--server <id|name>] [--http-port N] [--socks-port N] [--core xray|v2ray|PATH] [--mode proxy|system-wide] [--capture tproxy|tun] [--kill-switch [--kill-switch-allow-lan]] [--routing FILE] [--share ADDRESS] [--bypass-app APP …|--only-app APP …] [--probe] [--verbose]';

export interface CliTunnelOptions {
  /** A subscription URL or a file holding one's body. */
  subscription: string;
  httpPort?: number;
  socksPort?: number;
  /** The main core: a name (`xray`, `v2ray`) or a path; default: Xray, else v2ray, bundled first, then PATH. */
  corePath?: string | null;
  /** Where configs are written (default: the app data folder's `runtime`). */
  runtimeDir?: string;
  /** Start the prober with every server of the subscription. */
  probe?: boolean;
  /** `system-wide` captures the machine's traffic (Linux, root); default `proxy`. */
  mode?: ConnectionMode;
  /** Routing for the tunnel (`--routing FILE`); absent = everything through the server. */
  routing?: RoutingFile;
  /** Linux: how system-wide mode captures (`--capture`); default nftables TPROXY. */
  capture?: SystemWideCaptureMethod;
  /** Household sharing on this private LAN address (`--share`). */
  share?: string;
  /** System-wide mode: the apps that bypass the VPN, or the only ones that use it (`--bypass-app`, `--only-app`). */
  perApp?: PerAppSettings;
}

/** The CLI's own tunnel for `connect` (not main/headless/, the headless host with its API). */
export interface CliTunnel {
  core: CoreProfile;
  /** The cores beside it that carry what it cannot (sing-box). */
  carriers: readonly CoreProfile[];
  servers: Server[];
  tunnel: TunnelController;
  prober: CarrierProber;
  /** System-wide capture (present in every mode; it acts only in `system-wide`). */
  capture: SystemWide;
  logger: Logger;
  /** Disconnects the tunnel and stops the prober: no core is left running. */
  close(): Promise<void>;
}

export async function buildCliTunnel(options: CliTunnelOptions, logger: Logger): Promise<CliTunnel> {
  // The app's own pieces (app/engine/core-pieces.ts): the same core search, capture and tunnel.
  const found = await findCore({ corePath: options.corePath ?? null, resourcesDir: repositoryResources() }, logger);
  if ('problem' in found) throw new CliError(found.problem.detail);
  const core = found.profile;
  const carriers = found.carriers;
  const servers = await loadServers(options.subscription, logger);
  const runtimeDir = options.runtimeDir ?? join(defaultDataDir(), 'runtime');
  // A run killed together with its helper left capture behind: it is taken away before anything else.
  const capture = await startCapture(
    {
      dataDir: defaultDataDir(),
      runtimeDir,
      resourcesDir: repositoryResources(),
      logger,
      launch: checkoutHelperLaunch,
      corePath: core.path,
      bypassLan: () => options.routing?.routing.bypassLan ?? true,
      perApp: () => options.perApp ?? DEFAULT_PER_APP,
      linuxCapture: () => options.capture ?? 'tproxy',
      remoteDns: () => options.routing?.dns?.remote ?? DEFAULT_DNS.remote,
    },
    options.mode ?? 'proxy',
  );
  const routing = options.routing ? await routingFor(options.routing, core, logger) : undefined;
  const httpPort = options.httpPort ?? DEFAULT_SETTINGS.httpPort;
  const socksPort = options.socksPort ?? DEFAULT_SETTINGS.socksPort;
  const sharing = options.share ? { enabled: true, address: options.share } : DEFAULT_SETTINGS.sharing;
  const ports = tunnelPorts({ httpPort, socksPort, sharing }, () => new SharingCredentialsFile(cliDataDir()).get());
  const { tunnel, unbind } = captureFollowedTunnel({ core, carriers, runtimeDir, logger, ports, capture, routing });
  const prober = new CarrierProber({ core, carriers, runtimeDir, logger, outboundMark: await probeOutboundMark(core) });
  if (options.probe) prober.setServers(servers);
  return {
    core,
    carriers,
    servers,
    tunnel,
    prober,
    capture,
    logger,
    close: async () => {
      await Promise.allSettled([tunnel.disconnect(), prober.close()]);
      await capture.end();
      unbind();
    },
  };
}

/** The tunnel's routing from a routing file, with what differs from it said on stderr. */
async function routingFor(file: RoutingFile, core: CoreProfile, logger: Logger) {
  const service = await RoutingService.create(repositoryResources(), core);
  const state = service.stateFor({ routing: file.routing, dns: file.dns ?? DEFAULT_DNS });
  for (const notice of state.view.notices) logger.warn('ROUTING', notice);
  const date = state.view.presetInForce !== 'global' && state.view.dataDate ? ` (region data of ${state.view.dataDate})` : '';
  logger.info('ROUTING', `preset ${state.view.presetInForce}${date}, ${file.routing.rules.length} rule(s) of your own, LAN ${file.routing.bypassLan ? 'direct' : 'through the server'}`);
  return state.routing;
}

/** The servers of a subscription URL or file, with ids as a subscription update gives them. */
export async function loadServers(source: string, logger: Logger): Promise<Server[]> {
  let body: Buffer;
  if (/^https?:\/\//i.test(source)) {
    logger.redactor.add(source);
    const fetcher = await appFetcher({ dataDir: cliDataDir(), logger });
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
export function chooseServer(servers: readonly Server[], core: CoreProfile, wanted?: string, carriers: readonly CoreProfile[] = []): Server {
  const viaOf = (s: Server) => (s.via ? servers.find((v) => v.id === s.via) : undefined);
  if (wanted) {
    const exact = servers.find((s) => s.id === wanted) ?? servers.find((s) => s.name === wanted);
    if (exact) return exact;
    const partial = servers.filter((s) => s.name.toLowerCase().includes(wanted.toLowerCase()));
    if (partial.length === 1) return partial[0] as Server;
    if (partial.length > 1) throw new UsageError(`"${wanted}" matches ${partial.length} servers: ${partial.map((s) => `${s.id} (${s.name})`).join(', ')}`);
    throw new UsageError(`no server "${wanted}" in the subscription; servers: ${servers.map((s) => `${s.id} (${s.name})`).join(', ')}`);
  }
  const runnable = servers.find((s) => chooseCarrier(s, viaOf(s), core, carriers).kind !== 'unsupported');
  if (!runnable) throw new CliError(`none of the ${servers.length} servers can run on ${coreLabel(core)}`);
  return runnable;
}

interface ParsedArgs {
  subscription: string;
  routingFile?: string;
  server?: string;
  httpPort?: number;
  socksPort?: number;
  corePath?: string;
  probe: boolean;
  verbose: boolean;
  mode?: ConnectionMode;
  capture?: SystemWideCaptureMethod;
  killSwitch: boolean;
  killSwitchAllowLan: boolean;
  share?: string;
  perApp?: PerAppSettings;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const { values } = readOptions(
    argv,
    {
      subscription: { type: 'string' },
      server: { type: 'string' },
      'http-port': { type: 'string' },
      'socks-port': { type: 'string' },
      core: { type: 'string' },
      mode: { type: 'string' },
      capture: { type: 'string' },
      routing: { type: 'string' },
      share: { type: 'string' },
      'bypass-app': { type: 'string', multiple: true },
      'only-app': { type: 'string', multiple: true },
      probe: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'kill-switch': { type: 'boolean' },
      'kill-switch-allow-lan': { type: 'boolean' },
    },
    USAGE,
  );
  if (!values.subscription) throw new UsageError(USAGE);
  if (values['kill-switch-allow-lan'] && !values['kill-switch']) throw new UsageError(`--kill-switch-allow-lan goes with --kill-switch\n${USAGE}`);
  const httpPort = portOption('--http-port', values['http-port']);
  const socksPort = portOption('--socks-port', values['socks-port']);
  if (httpPort !== undefined && httpPort === socksPort) throw new UsageError('--http-port and --socks-port must differ');
  const shareProblem = values.share !== undefined ? sharingAddressProblem(values.share) : null;
  if (shareProblem) throw new UsageError(`--share: ${shareProblem}`);
  const perApp = perAppOption(values['bypass-app'], values['only-app']);
  return {
    subscription: values.subscription,
    ...(values.server !== undefined ? { server: values.server } : {}),
    ...(httpPort !== undefined ? { httpPort } : {}),
    ...(socksPort !== undefined ? { socksPort } : {}),
    ...(values.core !== undefined ? { corePath: coreOption(values.core) } : {}),
    ...(values.mode !== undefined ? { mode: cliMode(values.mode, USAGE) } : {}),
    ...(values.capture !== undefined ? { capture: cliCapture(values.capture, USAGE) } : {}),
    ...(values.routing !== undefined ? { routingFile: values.routing } : {}),
    ...(values.share !== undefined ? { share: values.share } : {}),
    ...(perApp ? { perApp } : {}),
    probe: values.probe === true,
    verbose: values.verbose === true,
    killSwitch: values['kill-switch'] === true,
    killSwitchAllowLan: values['kill-switch-allow-lan'] === true,
  };
}

/** `--bypass-app` and `--only-app` (each may repeat; not both): an app's path, its program name or uid:N. */
function perAppOption(bypass: string[] | undefined, only: string[] | undefined): PerAppSettings | undefined {
  if (bypass && only) throw new UsageError('--bypass-app and --only-app cannot be used together: one list is active');
  const entries = bypass ?? only;
  if (!entries) return undefined;
  const bad = entries.find((entry) => appEntryOf(entry) === null);
  if (bad !== undefined) throw new UsageError(`${bypass ? '--bypass-app' : '--only-app'} "${bad}": an app is its full path, its program name or uid:N`);
  return bypass ? { mode: 'bypass', bypass, only: [] } : { mode: 'only', bypass: [], only: entries };
}

export async function run(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    console.error((error as Error).message);
    return error instanceof UsageError ? error.exitCode : 2;
  }
  const level: LogLevel = args.verbose ? 'debug' : 'info';
  const logger = new Logger({ level, sinks: [stderrSink] });
  let cliTunnel: CliTunnel | null = null;
  let killSwitch: KillSwitch | null = null;
  const stop = untilStopped();
  try {
    // A bad routing file is a usage error (exit 2): nothing has started yet.
    const routing = args.routingFile
      ? await readRoutingFile(args.routingFile).catch((error: unknown) => {
          throw new UsageError(error instanceof Error ? error.message : String(error));
        })
      : undefined;
    killSwitch = await cliKillSwitch(logger);
    cliTunnel = await buildCliTunnel({ ...args, probe: args.probe, routing }, logger);
    const { tunnel, core } = cliTunnel;
    const server = chooseServer(cliTunnel.servers, core, args.server, cliTunnel.carriers);
    // Before the first packet to a server: every server of the subscription is allowed, so a
    // change of server never waits for the rules.
    if (args.killSwitch) await engageKillSwitch(killSwitch, cliTunnel.servers, args.killSwitchAllowLan);
    printEvents(cliTunnel);
    const state = await tunnel.connect(server, server.via ? cliTunnel.servers.find((s) => s.id === server.via) : undefined);
    console.log(`connected to ${server.name} [${server.id}] with ${coreLabel(core)}; Ctrl-C disconnects`);
    console.log(state.httpProxy);
    console.log(state.socksProxy);
    if (args.share) {
      const host = args.share.includes(':') ? `[${args.share}]` : args.share;
      const httpPort = args.httpPort ?? DEFAULT_SETTINGS.httpPort;
      const socksPort = args.socksPort ?? DEFAULT_SETTINGS.socksPort;
      console.log(`sharing: http://${host}:${httpPort} socks5://${host}:${socksPort} (username and password in ${new SharingCredentialsFile(cliDataDir()).path})`);
    }
    if (args.mode === 'system-wide') await reportCapture(cliTunnel.capture);
    console.log(`${await stop.stopped}: disconnecting`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return error instanceof CliError || error instanceof UsageError ? error.exitCode : 1;
  } finally {
    stop.dispose();
    await cliTunnel?.close();
    await leaveKillSwitch(killSwitch);
  }
}

function printEvents({ tunnel, prober, servers }: CliTunnel): void {
  const name = (id: string | null) => servers.find((s) => s.id === id)?.name ?? id ?? '-';
  tunnel.on('state', (s) => console.log(`state: ${s.state}${s.serverId ? ` (${name(s.serverId)})` : ''}${s.error ? `: ${s.error}` : ''}`));
  tunnel.on('dialFailure', (f) => console.log(`dial failure: ${f.kind} ${f.address ?? ''} (${name(f.serverId)}): ${f.detail}`));
  tunnel.on('coreExit', (e) => console.log(`core exit: ${e.description}; restart ${e.attempt} in ${e.restartInMs} ms`));
  tunnel.on('restarted', (e) => console.log(`core restarted after ${e.downMs} ms down`));
  let refused = 0;
  tunnel.on('loginRefused', () => console.log(`sharing: a login was refused (${++refused} so far)`));
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

