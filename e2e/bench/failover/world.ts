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

export interface WorldOptions {
  /** The lab (see `spawnFailoverLab`); the world does not stop it. */
  lab: Lab & { pid: number };
  /** The monitor's background interval (the bench keeps it out of the way by default). */
  monitorIntervalMs: number;
  /** Print the engine's log lines (not the cores') on stderr. */
  verbose: boolean;
  /** The main core: a name (`xray`, `v2ray`) or a path, as the settings' `corePath` takes it. */
  core: string;
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
  /** The lab server behind an engine server id. */
  labOf(serverId: string): LabServerInfo;
  /** The lab server a relay address (host:port) belongs to. */
  labByRelay(address: string): LabServerInfo | undefined;
  labByExitIp(ip: string): LabServerInfo | undefined;
  /** "vmess/ws/none": protocol, transport and security of an engine server. */
  kindOf(serverId: string): string;
  snapshot(): Promise<AppSnapshot>;
  stop(): Promise<void>;
}

export async function startWorld(options: WorldOptions): Promise<FailoverWorld> {
  const { lab } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'steadfast-bench-failover-'));
  const dials = new DialLog();
  const verboseSink = (record: LogRecord, line: string) => {
    if (options.verbose && !record.message.startsWith('core: ')) process.stderr.write(`${line}\n`);
  };
  const logger = new Logger({ level: 'debug', sinks: [dials.sink, verboseSink] });
  let engine: Engine | null = null;
  let engineTunnel: TunnelController | null = null;
  let serverOf: (id: string) => Server | undefined = () => undefined;
  let traffic: ExitTraffic | null = null;
  try {
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
    for (const subscription of lab.info.subscriptions) await running.addSubscription({ url: subscription.url });
    const first = await running.getSnapshot({});
    const subscriptionIds = first.subscriptions.map((s) => s.id);
    const byRelay = new Map(lab.info.servers.map((s) => [s.relay, s]));
    const byExit = new Map(lab.info.servers.map((s) => [s.exitIp, s]));
    const byEngineId = new Map<string, LabServerInfo>();
    const kinds = new Map<string, string>();
    for (const server of first.subscriptions.flatMap((s) => s.servers)) {
      const labServer = byRelay.get(`${server.address}:${server.port}`);
      if (labServer) byEngineId.set(server.id, labServer);
      const whole = serverOf(server.id);
      kinds.set(server.id, whole ? `${whole.protocol}/${whole.transport.network}/${whole.security.type}` : server.protocol);
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

    // Every server measured once so Auto has scores, then Auto on for A and connected.
    await running.testAll({});
    await pollOrFail('every server measured', async () => {
      const s = await running.getSnapshot({});
      return Object.values(s.statuses).filter((st) => st.delayMs !== null).length >= lab.info.servers.length;
    }, 90_000, 200);
    await running.setAuto({ subscriptionId: subscriptionIds[0]! });
    const state = await running.connect({});
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
      labOf(serverId) {
        const found = byEngineId.get(serverId);
        if (!found) throw new Error(`server ${serverId} is not one of the lab's`);
        return found;
      },
      labByRelay: (address) => byRelay.get(address),
      labByExitIp: (ip) => byExit.get(ip),
      kindOf: (serverId) => kinds.get(serverId) ?? 'unknown',
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

/** The lab of the bench: 12 servers in 3 subscriptions (A, B, C), the demo's latencies, as a child process. */
export function spawnFailoverLab(seed: number): Promise<Lab & { pid: number }> {
  return spawnLab(['--servers', '12', '--subscriptions', '3', '--seed', String(seed), '--latency', '20-300']);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
