/**
 * The demo world: the lab, the engine pointed at it, the headless host serving the UI, and a
 * user's steady traffic so Auto has something to watch. `npm run demo` runs it for a person; the
 * browser tests and benchmarks run the same thing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InvokeRequest } from '../../shared/ipc/contract';
import { createEngine, type Engine } from '../../app/engine';
import type { Logger } from '../../app/log/logger';
import { freePorts } from '../../app/tunnel/ports';
import { type HeadlessHost, startHeadlessHost } from '../../main/headless/host';
import { ensureRendererBuilt, RENDERER_DIST } from '../../main/headless/renderer-build';
import { type InProcessLab, labRouting, startLab } from '../lab';
import { TrafficGenerator } from './traffic';

export interface DemoOptions {
  logger: Logger;
  /** A lab to use (kept running on stop); by default one is started and stopped with the demo. */
  lab?: InProcessLab;
  servers?: number;
  subscriptions?: number;
  /** Where the engine keeps its files; a fresh temporary folder by default. */
  dataDir?: string;
  port?: number;
  /** Turn Auto on for the first subscription and connect at start (default true). */
  autoConnect?: boolean;
  /** The monitor's interval (the demo tests more often than the 5 min default so a visitor sees it move). */
  intervalMs?: number;
}

export interface Demo {
  lab: InProcessLab;
  engine: Engine;
  host: HeadlessHost;
  traffic: TrafficGenerator;
  dataDir: string;
  /** The lab id of an engine server (the relay it dials). */
  labIdOf(serverId: string): string;
  /** Stops the traffic, the host and the engine (and the lab when the demo started it). */
  stop(): Promise<void>;
}

export async function startDemo(options: DemoOptions): Promise<Demo> {
  const { logger } = options;
  await ensureRendererBuilt((line) => logger.info('DEMO', line));
  const ownLab = options.lab === undefined;
  const lab = options.lab ?? (await startLab({ servers: options.servers ?? 12, subscriptions: options.subscriptions ?? 3, seed: 1, latency: [20, 300] }));
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'steadfast-demo-'));
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];

  let engine: Engine | null = null;
  const labIdOf = (serverId: string): string => {
    const server = engineServers().find((s) => s.id === serverId);
    const labServer = server && lab.info.servers.find((l) => l.relay === `${server.address}:${server.port}`);
    if (!labServer) throw new Error(`server ${serverId} is not one of the lab's`);
    return labServer.id;
  };
  let cachedServers: { id: string; address: string; port: number }[] = [];
  const engineServers = () => cachedServers;
  const labControl = async (request: InvokeRequest<'labControl'>): Promise<void> => {
    if (request.action === 'network') await lab.setNetwork(request.state);
    else await lab.setFault(labIdOf(request.serverId), { fault: request.fault });
  };

  engine = await createEngine({
    dataDir,
    resourcesDir: fileURLToPath(new URL('../../resources', import.meta.url)),
    logger,
    labControl,
    throughputUrl: (bytes) => `${lab.info.download}?bytes=${bytes}`,
    settingsOverrides: {
      httpPort,
      socksPort,
      monitor: {
        urls: [lab.info.target],
        ipInfoUrls: lab.info.ipinfoUrls,
        transferTestUrl: `${lab.info.bytes}/{bytes}`,
        intervalMs: options.intervalMs ?? 60_000,
        throughputBytes: 512 * 1024,
      },
      // The lab is all on loopback: bypassLan would send the demo's traffic past the servers.
      ...labRouting(lab.info),
    },
  });
  const remember = (subs: { servers: { id: string; address: string; port: number }[] }[]) => {
    cachedServers = subs.flatMap((s) => s.servers);
  };
  engine.on('subscriptions', remember);
  const known = new Set((await engine.getSnapshot({})).subscriptions.map((s) => s.url));
  for (const subscription of lab.info.subscriptions) {
    if (!known.has(subscription.url)) await engine.addSubscription({ url: subscription.url });
  }
  const snapshot = await engine.getSnapshot({});
  remember(snapshot.subscriptions);

  const host = await startHeadlessHost({ service: engine, rendererDir: RENDERER_DIST, port: options.port ?? 0, logger });
  let proxy: string | null = snapshot.connection.state === 'connected' ? snapshot.connection.httpProxy : null;
  engine.on('connection', (c) => (proxy = c.state === 'connected' ? c.httpProxy : null));
  const traffic = new TrafficGenerator(() => proxy, `${lab.info.download}?bytes=4096`);
  traffic.start();

  if (options.autoConnect !== false && snapshot.subscriptions[0]) {
    if (snapshot.auto.subscriptionId === null) await engine.setAuto({ subscriptionId: snapshot.subscriptions[0].id });
    await engine.connect({});
  }
  await engine.testAll({});

  const running = engine;
  return {
    lab,
    engine: running,
    host,
    traffic,
    dataDir,
    labIdOf,
    async stop() {
      await traffic.stop();
      await host.close();
      await running.stop();
      if (ownLab) await lab.stop();
    },
  };
}
