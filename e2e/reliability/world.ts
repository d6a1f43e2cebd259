/**
 * The reliability tests' world: the lab in a child process (so every socket and handle in this
 * process is the engine's), the engine against it with short timings, a user's steady traffic
 * through the local proxy, and the bookkeeping every fault case checks afterwards: unhandled
 * rejections, the engine's cores and sockets, and the files on disk.
 *
 * Timings are shortened through settings only (stall 1.5 s, URL test 2 s, monitor cycle 30 s);
 * Auto's own numbers (quiet 5 s after a switch and 15 s after a check, 3 switches per 3 min) are
 * the spec's and stay as they are.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutoDecision } from '../../shared/domain/auto';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import type { AppSnapshot } from '../../shared/ipc/contract';
import type { SettingsPatch } from '../../shared/settings';
import { expect } from 'vitest';
import { queueOrder } from '../../app/auto/policy/queue';
import { worldOf } from '../../app/auto/policy/world';
import { createEngine, type Engine } from '../../app/engine';
import { memoryLogger } from '../../app/log/logger';
import { freePorts } from '../../app/tunnel/ports';
import { waitFor } from '../../app/testing/wait';
import { TrafficGenerator } from '../demo/traffic';
import { buildWorld, type FaultSettings, type Lab, labRouting, spawnLab, type World } from '../lab';
import { coreCounts, inventory, type Inventory } from './inventory';

export interface WorldOptions {
  servers?: number;
  subscriptions?: number;
  seed?: number;
  latency?: [number, number];
  /** Settings over the tests' defaults. */
  settings?: SettingsPatch;
  /** Monitor settings over the tests' defaults (merged into them, unlike `settings.monitor`). */
  monitor?: NonNullable<SettingsPatch['monitor']>;
  logLevel?: 'debug' | 'info';
  /** The engine's data folder; by default a fresh temporary one. It need not exist yet. */
  dataDir?: string;
}

export interface Decision {
  at: number;
  decision: AutoDecision;
}

export const STALL_MS = 1500;
export const URL_TEST_TIMEOUT_MS = 2000;


export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A web site that accepts and reads every request and never answers: the user's own dead site. */
class SilentSite {
  private readonly sockets = new Set<Socket>();
  private server: NetServer | null = null;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Its side of the connections belongs to this process too: dropped so socket counts are the engine's. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export class ReliabilityWorld {
  readonly rejections: unknown[] = [];
  readonly decisions: Decision[] = [];
  readonly log = memoryLogger('info');
  engine!: Engine;
  /** Requests to the lab's download: what Auto watches. */
  traffic!: TrafficGenerator;
  /**
   * Requests to a site that never answers, through a server that does: a stall that is not the
   * server's fault (start with `silentTraffic.start()`, stop with `stopSilentTraffic()`).
   */
  silentTraffic!: TrafficGenerator;
  private proxy: string | null = null;
  private readonly silentSite = new SilentSite();
  private readonly onRejection = (reason: unknown) => this.rejections.push(reason);
  private faulted = new Set<string>();
  /** The engine's cores and sockets once it settled, before any fault. */
  baseline!: Inventory;

  private constructor(
    readonly lab: Lab & { pid: number },
    readonly world: World,
    readonly dataDir: string,
    private readonly options: WorldOptions,
  ) {}

  static async start(options: WorldOptions = {}): Promise<ReliabilityWorld> {
    const shape = { servers: options.servers ?? 12, subscriptions: options.subscriptions ?? 3, seed: options.seed ?? 5, latency: options.latency ?? ([10, 40] as [number, number]) };
    const lab = await spawnLab(['--servers', String(shape.servers), '--subscriptions', String(shape.subscriptions), '--seed', String(shape.seed), '--latency', shape.latency.join('-')]);
    const w = new ReliabilityWorld(lab, buildWorld(shape), options.dataDir ?? mkdtempSync(join(tmpdir(), 'steadfast-reliability-')), options);
    process.on('unhandledRejection', w.onRejection);
    await w.silentSite.start();
    w.engine = await w.createEngine();
    for (const subscription of lab.info.subscriptions) await w.engine.addSubscription({ url: subscription.url });
    w.traffic = new TrafficGenerator(() => w.proxy, `${lab.info.download}?bytes=4096`, { everyMs: 200, timeoutMs: 1500, maxInFlight: 8 });
    w.silentTraffic = new TrafficGenerator(() => w.proxy, `http://127.0.0.1:${w.silentSite.port}/`, { everyMs: 150, timeoutMs: 1500, maxInFlight: 16 });
    return w;
  }

  /** A started world, connected and settled, its baseline taken: where every fault test begins. */
  static async startSettled(options: WorldOptions = {}): Promise<ReliabilityWorld> {
    const w = await ReliabilityWorld.start(options);
    await w.connectAndSettle();
    w.baseline = await w.coresSettled();
    return w;
  }

  /** Stops the engine leaving no core behind, then the lab and everything else of the world. */
  async shutdown(): Promise<void> {
    await this.stopEngineLeavingNoCore();
    await this.stop();
  }

  /** Creates the engine on this world's data folder (again, after `stopEngine`). */
  async createEngine(): Promise<Engine> {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const engine = await createEngine({
      dataDir: this.dataDir,
      logger: this.log.logger,
      watchNetwork: false,
      throughputUrl: (bytes) => `${this.lab.info.download}?bytes=${bytes}`,
      settingsOverrides: {
        httpPort,
        socksPort,
        logLevel: this.options.logLevel ?? 'info',
        stallThresholdMs: STALL_MS,
        ...labRouting(this.lab.info),
        monitor: {
          urls: [this.lab.info.target],
          ipInfoUrls: this.lab.info.ipinfoUrls,
          transferTestUrl: `${this.lab.info.bytes}/{bytes}`,
          urlTestTimeoutMs: URL_TEST_TIMEOUT_MS,
          intervalMs: 30_000,
          debounceWindowMs: 200,
          ...this.options.monitor,
        },
        ...this.options.settings,
      },
    });
    engine.on('connection', (c) => (this.proxy = c.state === 'connected' ? c.httpProxy : null));
    engine.onDecision((decision) => this.decisions.push({ at: Date.now(), decision }));
    this.engine = engine;
    return engine;
  }

  /** Auto on for the first subscription, connected, every server tested, traffic flowing. */
  async connectAndSettle(): Promise<void> {
    const first = (await this.snapshot()).subscriptions[0]!;
    await this.engine.setAuto({ subscriptionId: first.id });
    const state = await this.engine.connect({});
    this.proxy = state.state === 'connected' ? state.httpProxy : null;
    this.traffic.start();
    await this.engine.testAll({});
    await waitFor('every server tested in this run', async () => Object.values((await this.snapshot()).statuses).every((s) => s.testedAt !== null && !s.fromCache && !s.testing), 30_000);
    await waitFor('traffic flowing', () => this.traffic.lastAnswerAt > Date.now() - 1000, 10_000);
  }

  /** The tunnel's local HTTP proxy while connected. */
  httpProxy(): string | null {
    return this.proxy;
  }

  snapshot(): Promise<AppSnapshot> {
    return this.engine.getSnapshot({});
  }

  async current(): Promise<ServerId> {
    const s = await this.snapshot();
    if (s.connection.state !== 'connected' || !s.connection.serverId) throw new Error(`not connected: ${s.connection.state} ${s.connection.error ?? ''}`);
    return s.connection.serverId;
  }

  // ——— servers ———

  async labIdOf(serverId: ServerId): Promise<string> {
    const server = (await this.snapshot()).subscriptions.flatMap((s) => s.servers).find((s) => s.id === serverId);
    const lab = server && this.lab.info.servers.find((l) => l.relay === `${server.address}:${server.port}`);
    if (!lab) throw new Error(`server ${serverId} is not one of the lab's`);
    return lab.id;
  }

  async subscriptionOf(serverId: ServerId): Promise<SubscriptionId> {
    const found = (await this.snapshot()).subscriptions.find((s) => s.servers.some((server) => server.id === serverId));
    if (!found) throw new Error(`no subscription holds ${serverId}`);
    return found.id;
  }

  async serverIds(subscriptionId?: SubscriptionId): Promise<ServerId[]> {
    const subs = (await this.snapshot()).subscriptions;
    return subs.filter((s) => subscriptionId === undefined || s.id === subscriptionId).flatMap((s) => s.servers.map((server) => server.id));
  }

  /** Auto's queue for a subscription, computed with Auto's own policy from what the engine shows. */
  async queue(subscriptionId: SubscriptionId): Promise<ServerId[]> {
    const s = await this.snapshot();
    // The whole statuses (the snapshot's list form has no measurements), from the observation export.
    const statuses = Object.fromEntries((await this.engine.exportObservation({})).servers.map((st) => [st.serverId, st]));
    const world = worldOf({
      subscriptions: s.subscriptions.map((sub) => ({ id: sub.id, serverIds: sub.servers.map((server) => server.id) })),
      measurements: Object.fromEntries(Object.values(statuses).map((st) => [st.serverId, st.recent])),
      fromCache: Object.fromEntries(Object.values(statuses).map((st) => [st.serverId, st.fromCache])),
      throughputBps: Object.fromEntries(Object.values(statuses).flatMap((st) => (st.throughputBps === null ? [] : [[st.serverId, st.throughputBps]]))),
      verdicts: Object.fromEntries(Object.values(statuses).flatMap((st) => (st.reachability ? [[st.serverId, st.reachability.verdict]] : []))),
      transfers: Object.fromEntries(Object.values(statuses).flatMap((st) => (st.transfer ? [[st.serverId, st.transfer.verdict]] : []))),
    });
    const ids = s.subscriptions.find((sub) => sub.id === subscriptionId)?.servers.map((server) => server.id) ?? [];
    return queueOrder(world, ids, Date.now());
  }

  // ——— faults ———

  async setFaults(labIds: readonly string[], fault: FaultSettings): Promise<void> {
    for (const id of labIds) {
      await this.lab.setFault(id, fault);
      if (fault.fault && fault.fault !== 'none') this.faulted.add(id);
    }
  }

  async clearFaults(): Promise<void> {
    for (const id of this.faulted) await this.lab.setFault(id, { fault: 'none' });
    this.faulted.clear();
  }

  /**
   * What must hold after every fault, once it is lifted: no unhandled rejection; the same cores
   * listening on as many sockets as at the start (the tunnel's HTTP, SOCKS and stats API; the
   * prober's one inbound per server), each under its guard; nothing new listening in this process
   * (the test's silent site is the only listener here); this process's sockets back near the
   * baseline; every server and the settings still on disk.
   */
  async assertSound(): Promise<void> {
    expect(this.rejections, 'unhandled rejections').toEqual([]);
    const inv = await this.coresSettled();
    const listeners = (role: string, of = inv) => of.cores.find((c) => c.role === role)?.listeners;
    expect(listeners('tunnel')).toBe(listeners('tunnel', this.baseline));
    expect(listeners('prober')).toBe(listeners('prober', this.baseline));
    expect(inv.ownListeners.map((l) => l.port)).toEqual(this.baseline.ownListeners.map((l) => l.port));
    await this.socketsSettled();
    expect(Object.values(this.persistedServers())).toEqual(this.world.subscriptions.map((sub) => sub.serverIds.length));
    expect(this.persistedSettings()).toMatchObject({ stallThresholdMs: STALL_MS });
  }

  async stopSilentTraffic(): Promise<void> {
    await this.silentTraffic.stop();
    this.silentSite.dropConnections();
  }

  // ——— Auto ———

  decisionsSince(t: number): AutoDecision[] {
    return this.decisions.filter((d) => d.at >= t).map((d) => d.decision);
  }

  async waitForDecision(since: number, what: string, match: (d: AutoDecision) => boolean, timeoutMs: number): Promise<AutoDecision> {
    return waitFor(`Auto: ${what}`, () => this.decisionsSince(since).find(match), timeoutMs, 50).catch((error: Error) => {
      throw new Error(`${error.message}\nAuto since then:\n${this.decisionsSince(since).map((d) => JSON.stringify(d)).join('\n')}`);
    });
  }

  /**
   * A fresh Auto episode on `subscriptionId`: a manual connect to its last server (Auto off), then
   * Auto on again, which forgets the episode (rate limit, widening, network-loss pause) and moves
   * to the best server. Returns once the spec's 5 s quiet after that switch has passed and
   * traffic flows again.
   */
  async freshAuto(subscriptionId: SubscriptionId): Promise<ServerId> {
    const worst = (await this.queue(subscriptionId)).at(-1)!;
    await this.engine.connect({ serverId: worst });
    const mark = Date.now();
    await this.engine.setAuto({ subscriptionId });
    // Set-up, not a figure under test: Auto decides this switch from the scores in hand, but a CI
    // run's other integration files can hold a 2-CPU machine's engine for seconds (one run waited
    // more than 5 s for it while this file passes alone in 7–12 s per case). And Auto's own queue
    // can rank first the server this world ranked last (after a fault on the whole subscription
    // every server's latest result failed, and their order is the ties'): then Auto, on its best
    // server already, stays without a decision, as the spec has it, and the episode starts there.
    const started = await waitFor('Auto: the switch to its best server, or on at the server it would pick', async () => {
      const switched = this.decisionsSince(mark).find((d) => d.type === 'switch' && d.reason === 'auto-on');
      if (switched) return { at: switched.at, stayed: false };
      const s = await this.snapshot();
      const onHere = s.auto.subscriptionId === subscriptionId && s.connection.state === 'connected' && s.connection.serverId === worst;
      return Date.now() - mark > 3000 && onHere && this.decisionsSince(mark).length === 0 ? { at: mark, stayed: true } : undefined;
    }, 15_000).catch((error: Error) => {
      throw new Error(`${error.message}\nAuto since then:\n${this.decisionsSince(mark).map((d) => JSON.stringify(d)).join('\n')}`);
    });
    await waitFor('connected to Auto’s pick', async () => {
      const s = await this.snapshot();
      return s.connection.state === 'connected' && (started.stayed || s.connection.serverId !== worst) && s.connection.serverId;
    }, 10_000);
    await sleep(Math.max(0, started.at + 5200 - Date.now()));
    const from = Date.now();
    await waitFor('traffic flowing again', () => this.traffic.lastAnswerAt > from, 10_000);
    return this.current();
  }

  // ——— what must hold after every fault ———

  inventory(): Inventory {
    return inventory(this.dataDir);
  }

  /**
   * This process's sockets once the traffic in flight has ended: no more than `slack` above the
   * baseline (requests and probes come and go; a leak stays).
   */
  async socketsSettled(slack = 12, timeoutMs = 10_000): Promise<number> {
    return waitFor('this process’s sockets back near the baseline', () => {
      const now = this.inventory().socketFds;
      return now <= this.baseline.socketFds + slack && now;
    }, timeoutMs).catch((error: Error) => {
      throw new Error(`${error.message}: ${this.inventory().socketFds} now, ${this.baseline.socketFds} at the start`);
    });
  }

  /** The servers subscriptions.json holds, per subscription id. */
  persistedServers(): Record<string, number> {
    const doc = JSON.parse(readFileSync(join(this.dataDir, 'subscriptions.json'), 'utf8')) as { subscriptions: { id: string; servers: unknown[] }[] };
    return Object.fromEntries(doc.subscriptions.map((s) => [s.id, s.servers.length]));
  }

  persistedSettings(): Record<string, unknown> {
    return JSON.parse(readFileSync(join(this.dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
  }

  /**
   * Waits until the engine runs one tunnel core and one prober core (plus at most a vantage core),
   * each under its guard (the guard `sh` and its watcher subshell: two per core).
   */
  async coresSettled(timeoutMs = 10_000): Promise<Inventory> {
    return waitFor(
      'one tunnel core, one prober core, each under its guard',
      () => {
        const inv = this.inventory();
        const counts = coreCounts(inv);
        return counts.tunnel === 1 && counts.prober === 1 && (counts.vantage ?? 0) <= 1 && !counts.other && inv.guards.length === 2 * inv.cores.length && inv;
      },
      timeoutMs,
    ).catch((error: Error) => {
      const inv = this.inventory();
      throw new Error(`${error.message}: ${JSON.stringify({ cores: inv.cores, guards: inv.guards })}`);
    });
  }

  /**
   * Stops the engine (checking it leaves no core behind) and starts a new one on the same data
   * folder, connected, with traffic flowing: what a user's restart of the app does.
   */
  async restartEngine(): Promise<void> {
    await this.stopEngineLeavingNoCore();
    await this.createEngine();
    const state = await this.engine.connect({});
    this.proxy = state.state === 'connected' ? state.httpProxy : null;
    const from = Date.now();
    this.traffic.start();
    await waitFor('traffic flowing after the restart', () => this.traffic.lastAnswerAt > from, 10_000);
  }

  async stopEngine(): Promise<void> {
    await this.traffic.stop();
    await this.silentTraffic.stop();
    await this.engine.stop();
  }

  /** Stops the engine and waits until none of its cores or their guards is left. */
  async stopEngineLeavingNoCore(): Promise<void> {
    await this.stopEngine();
    await waitFor('no core left after stop', () => {
      const inv = this.inventory();
      return inv.cores.length === 0 && inv.guards.length === 0;
    }, 10_000);
  }

  async stop(): Promise<void> {
    await this.traffic?.stop();
    await this.silentTraffic?.stop();
    await this.engine?.stop();
    await this.silentSite.stop();
    await this.lab.stop();
    process.off('unhandledRejection', this.onRejection);
    // A folder this world made is its to remove; one the caller gave is the caller's.
    if (!this.options.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
