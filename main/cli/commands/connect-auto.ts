/**
 * `npm run cli -- connect --auto --subscription URL [--subscription URL …] [--http-port N]
 * [--socks-port N] [--data-dir DIR] [--test-url URL …] [--core xray|v2ray|PATH] [--mode proxy|system-wide] [--capture tproxy|tun] [--routing FILE] [--settings FILE] [--verbose]`: the whole engine (tunnel, monitor, Auto,
 * reachability) without a UI. The subscriptions are put first in the order given (that order
 * defines Auto's neighbours), Auto is turned on for the first one and the VPN connects to its
 * pick. Prints the local proxy addresses on their own lines, then every `AUTO` line as Auto
 * decides; Ctrl-C or SIGTERM stops everything (no core left behind).
 *
 * `--routing FILE` (routing-file.ts) replaces the profile's routing and DNS settings for the run
 * and is saved with them, as a change in the UI would be. `--settings FILE` (main/settings-file.ts) is a
 * settings patch for the run (the monitor's URLs, say); the flags win over it. `--core` chooses the
 * main core (a name or a path) as Settings → Core does; without it (or the file's `corePath`) the
 * run takes Xray where it is found, else v2ray, whatever an earlier run chose.
 *
 * The CLI keeps its own profile (`<app data>/cli` unless `--data-dir`), so the monitor's cache and
 * Auto's marks carry over between runs without touching the desktop app's subscriptions.
 */
import { readFile } from 'node:fs/promises';
import type { SubscriptionId } from '../../../shared/domain/server';
import { createEngine, type Engine } from '../../../app/engine';
import { type LogLevel, Logger } from '../../../app/log/logger';
import { untilStopped } from '../../../app/process/until-stopped';
import { coreOption, portOption, readOptions, UsageError } from '../../args';
import { checkoutHelperLaunch } from '../../helper/launch';
import { cliCapture, cliDataDir, cliKillSwitch, cliMode, KILL_SWITCH_STAYS, reportCapture, reportKillSwitch, repositoryResources } from '../support';
import { defaultDataDir } from '../../../app/paths';
import { type RoutingFile, readRoutingFile } from './routing-file';
import { readSettingsFile } from '../../settings-patch-file';
import type { SettingsPatch, SystemWideCaptureMethod } from '../../../shared/settings';

const USAGE =
  'usage: npm run cli -- connect --auto --subscription <url|file> [--subscription <url|file> …] [--http-port N] [--socks-port N] [--data-dir DIR] [--test-url URL …] [--core xray|v2ray|PATH] [--mode proxy|system-wide] [--capture tproxy|tun] [--kill-switch [--kill-switch-allow-lan]] [--routing FILE] [--settings FILE] [--verbose]';

export interface AutoArgs {
  subscriptions: string[];
  httpPort?: number;
  socksPort?: number;
  dataDir?: string;
  /** Test URLs for the monitor, in order of preference (a URL reachable from where the servers are). */
  testUrls: string[];
  /** `system-wide` captures the machine's traffic (Linux, root); default `proxy`. */
  mode: 'proxy' | 'system-wide';
  /** The main core, by name or path (`--core`). */
  corePath?: string;
  /** Linux: how system-wide mode captures (`--capture`); absent: as the profile's settings say. */
  capture?: SystemWideCaptureMethod;
  routingFile?: string;
  settingsFile?: string;
  verbose: boolean;
  /** Let nothing out but to the servers of every subscription and over the tunnel (connect.ts). */
  killSwitch: boolean;
  killSwitchAllowLan: boolean;
}

export function parseAutoArgs(argv: readonly string[]): AutoArgs {
  const { values } = readOptions(
    argv,
    {
      auto: { type: 'boolean' },
      subscription: { type: 'string', multiple: true },
      'http-port': { type: 'string' },
      'socks-port': { type: 'string' },
      'data-dir': { type: 'string' },
      'test-url': { type: 'string', multiple: true },
      core: { type: 'string' },
      mode: { type: 'string' },
      capture: { type: 'string' },
      routing: { type: 'string' },
      settings: { type: 'string' },
      verbose: { type: 'boolean' },
      'kill-switch': { type: 'boolean' },
      'kill-switch-allow-lan': { type: 'boolean' },
    },
    USAGE,
  );
  const subscriptions = values.subscription ?? [];
  if (subscriptions.length === 0) throw new UsageError(USAGE);
  if (values['kill-switch-allow-lan'] && !values['kill-switch']) throw new UsageError(`--kill-switch-allow-lan goes with --kill-switch\n${USAGE}`);
  const httpPort = portOption('--http-port', values['http-port']);
  const socksPort = portOption('--socks-port', values['socks-port']);
  if (httpPort !== undefined && httpPort === socksPort) throw new UsageError('--http-port and --socks-port must differ');
  const corePath = coreOption(values.core);
  return {
    subscriptions,
    ...(httpPort !== undefined ? { httpPort } : {}),
    ...(socksPort !== undefined ? { socksPort } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
    testUrls: values['test-url'] ?? [],
    mode: values.mode === undefined ? 'proxy' : cliMode(values.mode, USAGE),
    ...(corePath !== undefined ? { corePath } : {}),
    ...(values.capture !== undefined ? { capture: cliCapture(values.capture, USAGE) } : {}),
    ...(values.routing !== undefined ? { routingFile: values.routing } : {}),
    ...(values.settings !== undefined ? { settingsFile: values.settings } : {}),
    verbose: values.verbose === true,
    killSwitch: values['kill-switch'] === true,
    killSwitchAllowLan: values['kill-switch-allow-lan'] === true,
  };
}

/** AUTO lines to stdout (they are the point of this command); the rest to stderr by level. */
function cliLogger(verbose: boolean): Logger {
  const level: LogLevel = verbose ? 'debug' : 'info';
  return new Logger({
    level,
    sinks: [
      (record, line) => {
        if (record.tag === 'AUTO') process.stdout.write(`${line}\n`);
        else if (verbose || record.level === 'warning' || record.level === 'error') process.stderr.write(`${line}\n`);
      },
    ],
  });
}

async function addAll(engine: Engine, sources: readonly string[]): Promise<SubscriptionId[]> {
  const ids: SubscriptionId[] = [];
  for (const source of sources) {
    const subscription = /^https?:\/\//i.test(source)
      ? await engine.addSubscription({ url: source })
      : await engine.addSubscription({ text: await readFile(source, 'utf8'), name: source });
    // A URL added earlier is not fetched again by add(): bring it up to date.
    const current = subscription.updatedAt === null || subscription.url === undefined ? subscription : await engine.updateSubscription({ id: subscription.id });
    const problem = current.lastError ? ` (${current.lastError})` : '';
    console.log(`subscription ${current.name}: ${current.servers.length} server(s)${problem}`);
    ids.push(current.id);
  }
  return ids;
}

export async function run(argv: readonly string[]): Promise<number> {
  let args: AutoArgs;
  try {
    args = parseAutoArgs(argv);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  let routing: RoutingFile | undefined;
  let fromFile: SettingsPatch = {};
  try {
    routing = args.routingFile ? await readRoutingFile(args.routingFile) : undefined;
    if (args.settingsFile) fromFile = await readSettingsFile(args.settingsFile);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const logger = cliLogger(args.verbose);
  let engine: Engine | null = null;
  const stop = untilStopped();
  try {
    // The engine keeps the kill switch (as the settings say, its list following the subscriptions);
    // without the flag, one left in force by an earlier run is kept so, never undone here.
    const leftOn = (await cliKillSwitch(logger)).state().on;
    engine = await createEngine({
      dataDir: args.dataDir ?? cliDataDir(),
      resourcesDir: repositoryResources(),
      logger,
      captureHelper: checkoutHelperLaunch,
      killSwitchDataDir: defaultDataDir(),
      settingsOverrides: {
        ...fromFile,
        // The CLI's mode and core are what its flags (or its settings file) say, whatever an earlier run stored.
        mode: args.mode,
        corePath: args.corePath ?? fromFile.corePath ?? null,
        ...(args.capture !== undefined ? { systemWideCapture: args.capture } : {}),
        killSwitch: args.killSwitch || leftOn,
        ...(args.killSwitch ? { killSwitchAllowLan: args.killSwitchAllowLan } : {}),
        ...(args.httpPort !== undefined ? { httpPort: args.httpPort } : {}),
        ...(args.socksPort !== undefined ? { socksPort: args.socksPort } : {}),
        ...(args.testUrls.length > 0 ? { monitor: { ...fromFile.monitor, urls: args.testUrls } } : {}),
        ...(routing ? { routing: routing.routing, ...(routing.dns ? { dns: routing.dns } : {}) } : {}),
      },
    });
    for (const problem of engine.startupProblems()) console.error(problem.detail);
    const { routing: inForce } = await engine.getSnapshot({});
    for (const notice of inForce.notices) console.error(`routing: ${notice}`);
    console.log(`routing: preset ${inForce.presetInForce}${inForce.presetInForce !== 'global' && inForce.dataDate ? ` (region data of ${inForce.dataDate})` : ''}`);
    const ids = await addAll(engine, args.subscriptions);
    const all = (await engine.getSnapshot({})).subscriptions.map((s) => s.id);
    await engine.reorderSubscriptions({ ids: [...ids, ...all.filter((id) => !ids.includes(id))] });
    // Every server of every subscription is allowed before Auto picks one.
    const killSwitch = engine.killSwitch();
    if (killSwitch && (args.killSwitch || leftOn)) {
      await killSwitch.settled();
      reportKillSwitch(killSwitch.state());
    }
    await engine.setAuto({ subscriptionId: ids[0] as string });
    const state = await engine.connect({});
    console.log(`connected with Auto on ${(await engine.getSnapshot({})).subscriptions[0]?.name}; Ctrl-C disconnects`);
    console.log(state.httpProxy);
    console.log(state.socksProxy);
    if (args.mode === 'system-wide') await reportCapture(engine.systemWide());
    console.log(`${await stop.stopped}: disconnecting`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    stop.dispose();
    const inForce = engine?.killSwitch()?.state().on === true;
    await engine?.stop();
    if (inForce) console.log(KILL_SWITCH_STAYS);
  }
}
