/**
 * The app under soak, in a process of its own so its memory and handles are its own: the engine
 * against a lab running elsewhere, the headless host with one browser-like WebSocket client
 * listening to every event, Auto on for the first subscription, and a user's steady traffic
 * through the local proxy. Started by `e2e/bench/soak.bench.ts` with `fork` (IPC channel):
 *
 *   parent → { type: 'sample' }  worker → { type: 'sample', sample: WorkerSample }
 *   parent → { type: 'stop' }    worker → { type: 'stopped', ... } and exits
 *
 * The worker stops itself when the parent goes away (the IPC channel closes), and its cores run
 * under `sh` guards that stop them if the worker itself dies.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import type { AutoDecision } from '../../shared/domain/auto';
import { createEngine } from '../../app/engine';
import { Logger } from '../../app/log/logger';
import { freePorts } from '../../app/tunnel/ports';
import { startHeadlessHost } from '../../main/headless/host';
import { RENDERER_DIST } from '../../main/headless/renderer-build';
import { TrafficGenerator } from '../demo/traffic';
import { labRouting } from '../lab/routing';
import { activeResources, coreCounts, inventory, liveDescendants } from './inventory';

export interface WorkerConfig {
  dataDir: string;
  subscriptions: string[];
  target: string;
  ipinfoUrls: Record<string, string>;
  /** The lab's resolver (see labRouting). */
  resolver: string;
  download: string;
  bytes: string;
  intervalMs: number;
}

export interface WorkerSample {
  at: number;
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** process.getActiveResourcesInfo() by kind. */
  resources: Record<string, number>;
  fds: number;
  socketFds: number;
  /** Live descendant processes (cores and their sh guards). */
  childProcesses: number;
  cores: Record<string, number>;
  coreListeners: number;
  switches: number;
  checks: number;
  networkLost: number;
  rateLimited: number;
  /** The server carrying traffic, and its address (the parent maps it to a lab server). */
  current: { id: string; address: string; port: number } | null;
  trafficAnswered: number;
  trafficFailed: number;
  wsEvents: number;
  unhandledRejections: number;
  errorLines: number;
}

type ParentMessage = { type: 'sample' } | { type: 'stop' };

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let unhandled = 0;
  process.on('unhandledRejection', (reason) => {
    unhandled++;
    process.stderr.write(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  });
  let errorLines = 0;
  // The engine writes its full log to app.log in the data folder; errors are also counted here.
  const logger = new Logger({
    level: 'info',
    sinks: [
      (record, line) => {
        if (record.level === 'error') {
          errorLines++;
          process.stderr.write(`${line}\n`);
        }
      },
    ],
  });
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const engine = await createEngine({
    dataDir: config.dataDir,
    resourcesDir: fileURLToPath(new URL('../../resources', import.meta.url)),
    logger,
    throughputUrl: (bytes) => `${config.download}?bytes=${bytes}`,
    settingsOverrides: {
      httpPort,
      socksPort,
      monitor: { urls: [config.target], ipInfoUrls: config.ipinfoUrls, transferTestUrl: `${config.bytes}/{bytes}`, intervalMs: config.intervalMs, throughputBytes: 256 * 1024 },
      ...labRouting(config),
    },
  });
  const decisions: Record<AutoDecision['type'], number> = { check: 0, 'probe-result': 0, stay: 0, switch: 0, 'network-lost': 0, 'rate-limited': 0, pause: 0, settings: 0, prepare: 0 };
  engine.onDecision((d) => decisions[d.type]++);
  for (const url of config.subscriptions) await engine.addSubscription({ url });

  const host = await startHeadlessHost({ service: engine, rendererDir: RENDERER_DIST, port: 0, logger });
  // A UI left open: every event reaches one WebSocket client for the whole run.
  let wsEvents = 0;
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${encodeURIComponent(host.token)}`, { headers: { origin: host.origin } });
  ws.on('message', () => wsEvents++);
  ws.on('error', (error) => process.stderr.write(`ui client: ${error.message}\n`));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });

  let proxy: string | null = null;
  engine.on('connection', (c) => (proxy = c.state === 'connected' ? c.httpProxy : null));
  const traffic = new TrafficGenerator(() => proxy, `${config.download}?bytes=4096`);
  const first = (await engine.getSnapshot({})).subscriptions[0];
  if (first) await engine.setAuto({ subscriptionId: first.id });
  const connected = await engine.connect({});
  proxy = connected.state === 'connected' ? connected.httpProxy : null;
  traffic.start();
  await engine.testAll({});

  const sample = async (): Promise<WorkerSample> => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const memory = process.memoryUsage();
    const inv = inventory(config.dataDir);
    const snapshot = await engine.getSnapshot({});
    const currentId = snapshot.connection.serverId;
    const server = snapshot.subscriptions.flatMap((s) => s.servers).find((s) => s.id === currentId);
    return {
      at: Date.now(),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      heapTotalBytes: memory.heapTotal,
      externalBytes: memory.external,
      resources: activeResources(),
      fds: inv.fds,
      socketFds: inv.socketFds,
      childProcesses: liveDescendants().length,
      cores: coreCounts(inv),
      coreListeners: inv.coreListeners.length,
      switches: decisions.switch,
      checks: decisions.check,
      networkLost: decisions['network-lost'],
      rateLimited: decisions['rate-limited'],
      current: server ? { id: server.id, address: server.address, port: server.port } : null,
      trafficAnswered: traffic.answered,
      trafficFailed: traffic.failed,
      wsEvents,
      unhandledRejections: unhandled,
      errorLines,
    };
  };

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await traffic.stop();
      ws.close();
      await host.close();
      await engine.stop();
    })());

  process.on('message', (message: ParentMessage) => {
    if (message.type === 'sample') {
      void sample().then(
        (s) => process.send?.({ type: 'sample', sample: s }),
        (error: unknown) => process.send?.({ type: 'error', error: String(error) }),
      );
    } else if (message.type === 'stop') {
      void stop().then(() => {
        const left = liveDescendants();
        process.send?.({ type: 'stopped', childProcesses: left.length, commands: left.map(commandOf) });
        process.disconnect?.();
        process.exit(0);
      });
    }
  });
  // The bench went away without saying stop: clean up and leave.
  process.on('disconnect', () => void stop().then(() => process.exit(0)));
  process.send?.({ type: 'ready', pid: process.pid });
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
  } catch {
    return '(gone)';
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`soak worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
