/**
 * The failover bench's world: the lab as a child process (its relays' timers then do not share an
 * event loop with the engine under test), the real engine pointed at it with Auto on for
 * subscription A, and a user's traffic through the local proxy that names the exit of every
 * answer. Also kept: Auto's decisions as they are made, the tunnel's dial events, and every core
 * dial (see dial-log.ts).
 */
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AutoDecision } from '../../../shared/domain/auto';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import type { Engine } from '../../../app/engine';
import type { Server } from '../../../shared/domain/server';
import type { TunnelController } from '../../../app/tunnel/controller';
import { createEngineWithParts } from '../../../app/engine/testing/engine-parts';
import { Logger, type LogRecord } from '../../../app/log/logger';
import type { DialFailureEvent, DialRetryEvent } from '../../../app/tunnel/controller';
import { pollOrFail } from '../../../app/testing/poll';
import { freePorts } from '../../../app/tunnel/ports';
import { type Lab, type LabServerInfo, labRouting, spawnLab } from '../../lab';
import { DialLog } from './dial-log';
import { ExitTraffic } from './exit-traffic';
import { FAILOVER_KINDS, type FailoverKind, LAB_KIND_OF, type LineupServer, type ModernFailoverKind } from './cases';

export interface WorldOptions {
  /** The lab (see `spawnFailoverLab`); the world does not stop it. */
  lab: Lab & { pid: number };
  /** The monitor's background interval (the bench keeps it out of the way by default). */
  monitorIntervalMs: number;
  /** Print the engine's log lines on stderr; `cores` also the cores' own lines (every dial, at debug). */
  verbose: boolean | 'cores';
  /** The main core: a name (`xray`, `v2ray`) or a path, as the settings' `corePath` takes it. */
  core: string;
  /**
   * The modern servers to add to subscription A (the lab spawned with `--modern`): its served
   * list becomes its plain servers, then these, before the engine adds it.
   */
  modern: readonly ModernFailoverKind[];
}

export interface FailoverWorld {
  lab: Lab & { pid: number };
  engine: Engine;
  /** A server whole (transport included), which the window's list form leaves out. */
  server(id: string): Server | undefined;
  traffic: ExitTraffic;
  dials: DialLog;
  decisions: AutoDecision[];
  dialFailures: DialFailureEvent[];
  dialRetries: DialRetryEvent[];
  /** Engine subscription ids in list order (A, B, C). */
  subscriptionIds: string[];
  /** The lab servers as the engine has them: A's modern servers in A (the lab lists them in RC). */
  servers: LabServerInfo[];
  /** Auto's subscription (A) for the lineups of cases.ts. */
  lineupServers: LineupServer[];
  /**
   * The modern kinds in A this core does not carry itself, with what the engine says of them
   * (another core carries them, or none can).
   */
  notCarried: Partial<Record<ModernFailoverKind, string>>;
  /** The lab server behind an engine server id. */
  labOf(serverId: string): LabServerInfo;
  /** The lab server a relay address (host:port) belongs to. */
  labByRelay(address: string): LabServerInfo | undefined;
  labByExitIp(ip: string): LabServerInfo | undefined;
  /** "vmess/ws/none": protocol, transport and security of an engine server; a modern server's lab kind ("vless-reality-vision"). */
  kindOf(serverId: string): string;
  /** The kind of a lab server, as kindOf says it. */
  kindOfLab(labId: string): string;
  /** Whether a lab server's relay carries UDP (QUIC) rather than TCP. */
  carrierOfLab(labId: string): 'tcp' | 'udp';
  snapshot(): Promise<AppSnapshot>;
  stop(): Promise<void>;
}

export async function startWorld(options: WorldOptions): Promise<FailoverWorld> {
  const { lab } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'steadfast-bench-failover-'));
  const dials = new DialLog();
  const verboseSink = (record: LogRecord, line: string) => {
    if (options.verbose === 'cores' || (options.verbose && !record.message.startsWith('core: '))) process.stderr.write(`${line}\n`);
  };
  const logger = new Logger({ level: 'debug', sinks: [dials.sink, verboseSink] });
  let engine: Engine | null = null;
  let engineTunnel: TunnelController | null = null;
  let serverOf: (id: string) => Server | undefined = () => undefined;
  let traffic: ExitTraffic | null = null;
  try {
    // Below the ephemeral range (freePorts), as a user's configured ports are: the core rebinds them on
    // every switch, and there no other program's connection can take one in that moment.
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    ({ engine, tunnel: engineTunnel, server: serverOf } = await createEngineWithParts({
      dataDir,
      logger,
      watchNetwork: false,
      // The repository's resources: the cores setup built are bundled there, as in the installers.
      resourcesDir: fileURLToPath(new URL('../../../resources', import.meta.url)),
      throughputUrl: (bytes) => `${lab.info.download}?bytes=${bytes}`,
      settingsOverrides: {
        httpPort,
        socksPort,
        corePath: options.core,
        // Debug passes every core line to the logger: the dial count reads them.
        logLevel: 'debug',
        monitor: { urls: [lab.info.target], ipInfoUrls: lab.info.ipinfoUrls, transferTestUrl: `${lab.info.bytes}/{bytes}`, intervalMs: options.monitorIntervalMs },
        ...labRouting(lab.info),
      },
    }));
    const running = engine;
    const servers = await composeSubscriptionA(lab, options.modern);
    // The modern block's own subscription stays out: its servers would be candidates twice.
    for (const subscription of lab.info.subscriptions.filter((s) => s.id !== lab.info.modern?.subscription)) await running.addSubscription({ url: subscription.url });
    const first = await running.getSnapshot({});
    const subscriptionIds = first.subscriptions.map((s) => s.id);
    const byRelay = new Map(servers.map((s) => [s.relay, s]));
    const byExit = new Map(servers.map((s) => [s.exitIp, s]));
    const byEngineId = new Map<string, LabServerInfo>();
    const kinds = new Map<string, string>();
    const labKinds = new Map<string, string>();
    for (const server of first.subscriptions.flatMap((s) => s.servers)) {
      const labServer = byRelay.get(`${server.address}:${server.port}`);
      if (labServer) byEngineId.set(server.id, labServer);
      const whole = serverOf(server.id);
      const kind = labServer?.kind ?? (whole ? `${whole.protocol}/${whole.transport.network}/${whole.security.type}` : server.protocol);
      kinds.set(server.id, kind);
      if (labServer) labKinds.set(labServer.id, kind);
    }
    const choiceOf = (labServer: LabServerInfo | undefined): FailoverKind | null =>
      labServer?.kind === undefined ? 'plain' : (FAILOVER_KINDS.find((k) => k !== 'plain' && LAB_KIND_OF[k] === labServer.kind) ?? null);
    const lineupServers: LineupServer[] = (first.subscriptions[0]?.servers ?? []).flatMap((s) => {
      const kind = choiceOf(byEngineId.get(s.id));
      return kind ? [{ id: s.id, kind }] : [];
    });
    const notCarried: Partial<Record<ModernFailoverKind, string>> = {};
    for (const s of lineupServers) {
      const said = first.unsupported[s.id] ?? first.carried?.[s.id];
      if (s.kind !== 'plain' && said !== undefined) notCarried[s.kind] = said;
    }

    const decisions: AutoDecision[] = [];
    running.onDecision((d) => decisions.push(d));
    const dialFailures: DialFailureEvent[] = [];
    const dialRetries: DialRetryEvent[] = [];
    const tunnel = engineTunnel;
    if (!tunnel) throw new Error(`the engine has no core: ${running.startupProblems().map((p) => p.detail).join('; ')}`);
    tunnel.on('dialFailure', (f) => dialFailures.push(f));
    tunnel.on('dialRetrying', (r) => dialRetries.push(r));

    let proxy: string | null = null;
    running.on('connection', (c) => (proxy = c.state === 'connected' ? c.httpProxy : null));
    traffic = new ExitTraffic(() => proxy, lab.info.ipinfoUrls['api.country.is']);

    // Every server measured once so Auto has scores, then Auto on for A and connected. A server
    // no core can carry is never measured; one another core carries is.
    await running.testAll({});
    const measurable = first.subscriptions.flatMap((s) => s.servers).filter((s) => first.unsupported[s.id] === undefined).length;
    await pollOrFail('every server measured', async () => {
      const s = await running.getSnapshot({});
      return Object.values(s.statuses).filter((st) => st.delayMs !== null).length >= measurable;
    }, 90_000, 200);
    // The modern servers stay marked until a case asks for them (trial.ts).
    const modernIds = lineupServers.filter((s) => s.kind !== 'plain').map((s) => s.id);
    if (modernIds.length > 0) await running.setExcluded({ subscriptionId: subscriptionIds[0]!, serverIds: modernIds });
    await running.setAuto({ subscriptionId: subscriptionIds[0]! });
    const state = await connectRetryingBusyPorts(running);
    proxy = state.httpProxy;
    traffic.start();

    const world: FailoverWorld = {
      lab,
      engine: running,
      server: serverOf,
      traffic,
      dials,
      decisions,
      dialFailures,
      dialRetries,
      subscriptionIds,
      servers,
      lineupServers,
      notCarried,
      labOf(serverId) {
        const found = byEngineId.get(serverId);
        if (!found) throw new Error(`server ${serverId} is not one of the lab's`);
        return found;
      },
      labByRelay: (address) => byRelay.get(address),
      labByExitIp: (ip) => byExit.get(ip),
      kindOf: (serverId) => kinds.get(serverId) ?? 'unknown',
      kindOfLab: (labId) => labKinds.get(labId) ?? 'unknown',
      carrierOfLab: (labId) => servers.find((s) => s.id === labId)?.carrier ?? 'tcp',
      snapshot: () => running.getSnapshot({}),
      async stop() {
        await traffic?.stop();
        await running.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
    return world;
  } catch (error) {
    await traffic?.stop();
    await engine?.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The lab of the bench: 12 servers in 3 subscriptions (A, B, C), the demo's latencies, as a child
 * process; with `modern`, also the block Xray and sing-box host (subscription RC), whose chosen
 * servers composeSubscriptionA moves into A.
 */
export async function spawnFailoverLab(seed: number, modern = false): Promise<Lab & { pid: number }> {
  const args = ['--servers', '12', '--subscriptions', '3', '--seed', String(seed), '--latency', '20-300', ...(modern ? ['--modern'] : [])];
  // The lab's cores bind ports picked free a moment before, as the app's do (see connectRetryingBusyPorts).
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnLab(args);
    } catch (error) {
      if (attempt >= 3 || !String(error instanceof Error ? error.message : error).includes('address already in use')) throw error;
      process.stderr.write(`[failover] lab start ${attempt}: a port was taken in between; again\n`);
    }
  }
}

/**
 * Subscription A served as its plain servers and then the chosen modern ones, as a provider that
 * mixes old and new servers serves them; the servers returned as the engine will have them (the
 * modern ones in A). Throws, with the lab's reason, when a chosen kind is not in the lab.
 */
async function composeSubscriptionA(lab: Lab, kinds: readonly ModernFailoverKind[]): Promise<LabServerInfo[]> {
  const first = lab.info.subscriptions[0]!.id;
  const plain = lab.info.servers.filter((s) => s.subscription === first);
  const modern = kinds.map((k) => {
    const found = lab.info.servers.find((s) => s.kind === LAB_KIND_OF[k]);
    if (found) return found;
    const leftOut = lab.info.modern?.leftOut.find((l) => l.kind === LAB_KIND_OF[k]);
    throw new Error(`the lab has no ${LAB_KIND_OF[k]} server${leftOut ? `: ${leftOut.reason}` : ' (was it started with --modern?)'}`);
  });
  if (modern.length > 0) await lab.setSubscription(first, { servers: [...plain, ...modern].map((s) => s.id) });
  const moved = new Set(modern.map((s) => s.id));
  return lab.info.servers.filter((s) => s.kind === undefined || moved.has(s.id)).map((s) => (moved.has(s.id) ? { ...s, subscription: first } : s));
}

/**
 * The core's ports are picked free a moment before it binds them; on a machine where other
 * programs open many connections, one of them can take a port in between (the core then says
 * "address already in use"). A fresh start picks fresh ports for the core's own listeners.
 */
async function connectRetryingBusyPorts(engine: Engine): Promise<Awaited<ReturnType<Engine['connect']>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await engine.connect({});
    } catch (error) {
      if (attempt >= 3 || !String(error instanceof Error ? error.message : error).includes('address already in use')) throw error;
      process.stderr.write(`[failover] connect attempt ${attempt}: ${error instanceof Error ? error.message : String(error)}; again\n`);
      await sleep(1000);
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
