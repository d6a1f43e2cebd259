/**
 * The prober: a second core, apart from the tunnel, hosting every server the core can run as its
 * own outbound behind its own loopback HTTP inbound, so any server can be tested without touching
 * the user's traffic. Rebuilt (a new core on new ports, then the old one retired once its probes
 * are done) when the server set changes, debounced. Servers the core cannot run are left out and
 * `readiness` says why.
 *
 * A probe through a server the core cannot reach does not fail by itself: the core accepts the
 * tunnel, fails to reach the server and closes it. Why (refused, reset, DNS, ...) is in the
 * core's log, which is read here; Debian's v2ray 4.34 gives up on a refused dial after its
 * retries (~2 s for vmess/vless, ~1 s for trojan/shadowsocks) and on a reset at once.
 */
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { ProbeError, ProbeFailure, ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import { judgeTestUrlAnswer } from '../../shared/domain/test-url';
import { type Clock, systemClock, type TimerHandle } from '../clock';
import { type CoreProfile, type ProbeRelayInput, unsupportedReason } from '../core';
import type { AntiDpiOptions } from '../core/anti-dpi';
import type { Logger } from '../log/logger';
import type { DownloadRequest, FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber, TransferCourse } from './probe-contract';
import { secretsOf } from '../../shared/domain/secrets';
import type { OutboundFailureKind } from './core-log';
import type { CoreExit } from './core-process';
import { Emitter } from '../events';
import { coreStarted, FRESH_HISTORY, restartAfterExit, type RestartHistory } from './policy/restart-backoff';
import { type ProberEntryInput, ProberGeneration, type RecordedFailure } from './prober-generation';
import { downloadThroughProxy } from './proxy-download';
import { type ProxiedResult, requestThroughProxy } from './proxy-request';
import { tcpPing } from './tcp-ping';

export interface CoreProberOptions {
  core: CoreProfile;
  runtimeDir: string;
  logger: Logger;
  clock?: Clock;
  /** Changes to the server set within this window make one rebuild (default 300 ms). */
  rebuildDebounceMs?: number;
  /** Each server's anti-DPI options (read at every `setServers`); absent: none. */
  antiDpi?: (serverId: ServerId) => AntiDpiOptions | null;
  readyTimeoutMs?: number;
  /** After a tunnel closed without an answer, how long to wait for the core's reason (default 300 ms). */
  verdictWaitMs?: number;
  /** How long a retired core may finish its probes (default 30 s). */
  drainMs?: number;
  /** SO_MARK on the probe core's outbounds (set where system-wide capture may run). */
  outboundMark?: number;
  /**
   * Why a server is not hosted here (default: `unsupportedReason` on `core`). Beside a carrier,
   * each prober leaves out the servers the other core carries (carrier-prober.ts).
   */
  cannotHost?: (server: Server, via: Server | undefined) => string | null;
  /** The config file's name before `-<id>.json`: each prober sharing a runtime folder needs its own. */
  fileName?: string;
  /** The anti-DPI relays to host for a carrier's prober (read at every `setServers`; carrier-prober.ts). */
  relays?: () => readonly ProbeRelayInput[];
  /** A carrier's prober: the main prober's relay a server's first hop dials through (read at every `setServers`). */
  antiDpiHop?: (serverId: ServerId) => { port: number; udp: boolean } | null;
  /**
   * A carrier's prober: keeps the main prober's core its relays are on running while a core of
   * this one dials through them (taken at each build, ended when that core stops).
   */
  hold?: () => () => void;
}

export interface ProberEvents {
  rebuilt: { generation: number; servers: number; unsupported: number; startMs: number };
  coreExit: { description: string; restartInMs: number };
}

const TAG = 'PROBER';
const DEFAULT_BODY_BYTES = 1024 * 1024;

const KIND_WORDS: Record<OutboundFailureKind, string> = {
  refused: 'the server refused the connection',
  reset: 'the server reset the connection',
  timeout: 'the server did not answer in time',
  dns: "the server's name does not resolve",
  tls: 'TLS with the server failed',
  handshake: 'the server closed the connection without answering (credentials rejected, or not this protocol)',
  network: 'the server could not be reached',
};

export class CoreProber implements ServerProber {
  private readonly emitter: Emitter<ProberEvents>;
  private readonly clock: Clock;
  private desired: readonly Server[] = [];
  private relays: readonly ProbeRelayInput[] = [];
  private desiredKey = '';
  private builtKey: string | null = null;
  private unsupported = new Map<ServerId, string>();
  private current: ProberGeneration | null = null;
  private lastError: string | null = null;
  private generations = 0;
  private debounce: TimerHandle | null = null;
  private restartTimer: TimerHandle | null = null;
  private history: RestartHistory = FRESH_HISTORY;
  private building: Promise<void> = Promise.resolve();
  private pending = false;
  private closed = false;
  private settledWaiters: (() => void)[] = [];

  constructor(readonly options: CoreProberOptions) {
    this.clock = options.clock ?? systemClock;
    this.emitter = new Emitter((error, event) => options.logger.error(TAG, `a ${String(event)} listener failed: ${String(error)}`));
  }

  on<K extends keyof ProberEvents>(event: K, listener: (payload: ProberEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  /** The servers to host. An unchanged set does nothing; a changed one rebuilds after the debounce. */
  setServers(servers: readonly Server[]): void {
    if (this.closed) return;
    this.desired = [...servers];
    const byId = new Map(servers.map((s) => [s.id, s]));
    this.unsupported = new Map();
    for (const server of servers) {
      const reason = this.reasonUnrunnable(server, byId);
      if (reason) this.unsupported.set(server.id, reason);
    }
    for (const server of servers) this.options.logger.redactor.add(...secretsOf(server));
    this.relays = this.options.relays?.() ?? [];
    this.desiredKey = JSON.stringify([this.entries().map((e) => [e.server, e.via ?? null, e.antiDpi ?? null, e.antiDpiHop ?? null]), this.relays]);
    if (this.desiredKey === this.builtKey && this.current?.running) return;
    this.pending = true;
    this.debounce?.cancel();
    this.debounce = this.clock.after(this.options.rebuildDebounceMs ?? 300, () => {
      this.debounce = null;
      this.rebuild();
    });
  }

  /**
   * Resolves once the latest server set has had its build attempt (tests, the CLI); `readiness`
   * then says whether it worked.
   */
  settled(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  readiness(serverId: ServerId): Readiness {
    const reason = this.unsupported.get(serverId);
    if (reason) return { ready: false, reason };
    if (!this.desired.some((s) => s.id === serverId)) return { ready: false, reason: 'not in the prober’s server list' };
    const generation = this.current;
    if (generation?.running && generation.ports.has(serverId)) return { ready: true };
    if (this.lastError) return { ready: false, reason: `the prober core is not running: ${this.lastError}` };
    return { ready: false, reason: 'the prober core is starting' };
  }

  async probe(serverId: ServerId, request: ProbeRequest): Promise<ProbeOutcome> {
    // The delay of a warm connection: comparable across protocols (see requestThroughProxy's warmUp).
    const result = await this.through(serverId, request.url, request.timeoutMs, 0, request.signal, true);
    if (!result.ok) return { ok: false, error: result.error };
    const judged = judgeTestUrlAnswer(request.url, result.status, request.expectStatus);
    if (!judged.ok) return { ok: false, error: { kind: 'http-status', message: judged.message } };
    return { ok: true, delayMs: Math.round(result.headersMs) };
  }

  async fetchThrough(serverId: ServerId, request: FetchThroughRequest): Promise<FetchThroughResult> {
    const result = await this.through(serverId, request.url, request.timeoutMs, request.maxBytes ?? DEFAULT_BODY_BYTES, request.signal, false, request.hostHeader);
    if (!result.ok) return { ok: false, error: result.error, elapsedMs: result.elapsedMs };
    return { ok: true, status: result.status, body: result.body, headersMs: result.headersMs, elapsedMs: result.elapsedMs };
  }

  async download(serverId: ServerId, request: DownloadRequest): Promise<TransferCourse> {
    const entry = this.entryFor(serverId);
    if (!entry.ok) return { kind: 'error', error: entry.error };
    const { generation, proxyUrl } = entry;
    const end = generation.begin();
    const began = performance.now();
    try {
      const outcome = await downloadThroughProxy({ ...request, proxyUrl, proxyLabel: 'the prober’s inbound' });
      if (outcome.kind !== 'failed') return outcome;
      const failure = outcome.failure;
      if (!failure.closedEarly) return { kind: 'error', error: { kind: failure.kind, message: failure.message }, bytes: outcome.bytes };
      const said = await generation.failureSince(serverId, began, this.options.verdictWaitMs ?? 300);
      return { kind: 'error', error: this.explain(said, failure.message), bytes: outcome.bytes };
    } finally {
      end();
    }
  }

  tcpPing(server: Server, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
    return tcpPing(server, timeoutMs, signal);
  }

  /** The running core's relay for a carried server's anti-DPI options (null: none, or no core). */
  relayHop(serverId: ServerId): { port: number; udp: boolean } | null {
    return this.current?.running ? this.current.relayHop(serverId) : null;
  }

  /** Keeps the running core (its relays) alive until the returned function is called, or its drain ends. */
  hold(): () => void {
    return this.current?.begin() ?? (() => undefined);
  }

  /** Stops the core; further probes say the prober is closed. */
  async close(): Promise<void> {
    this.closed = true;
    this.debounce?.cancel();
    this.restartTimer?.cancel();
    await this.building;
    const generation = this.current;
    this.current = null;
    if (generation) await this.retire(generation, 0);
    this.lastError = 'closed';
    this.settle();
  }

  private async through(
    serverId: ServerId,
    url: string,
    timeoutMs: number,
    maxBytes: number,
    signal?: AbortSignal,
    warmUp = false,
    hostHeader?: string,
  ): Promise<{ ok: true; status: number; body: Buffer; headersMs: number; elapsedMs: number } | { ok: false; error: ProbeError; elapsedMs: number }> {
    const entry = this.entryFor(serverId);
    if (!entry.ok) return { ok: false, error: entry.error, elapsedMs: 0 };
    const { generation, proxyUrl } = entry;
    const end = generation.begin();
    const began = performance.now();
    try {
      const result: ProxiedResult = await requestThroughProxy({ proxyUrl, url, timeoutMs, maxBytes, signal, warmUp, proxyLabel: 'the prober’s inbound', hostHeader });
      if (result.ok) return result;
      const failure = result.failure;
      if (!failure.closedEarly) return { ok: false, error: { kind: failure.kind, message: failure.message }, elapsedMs: result.elapsedMs };
      const remaining = timeoutMs - (performance.now() - began);
      const said = await generation.failureSince(serverId, began, Math.min(this.options.verdictWaitMs ?? 300, Math.max(0, remaining)));
      return { ok: false, error: this.explain(said, failure.message), elapsedMs: Math.round((performance.now() - began) * 10) / 10 };
    } finally {
      end();
    }
  }

  /** The running generation's inbound for the server, or why there is none. */
  private entryFor(serverId: ServerId): { ok: true; generation: ProberGeneration; proxyUrl: string } | { ok: false; error: ProbeError } {
    const readiness = this.readiness(serverId);
    const generation = this.current;
    const proxyUrl = generation?.proxyUrl(serverId);
    if (!readiness.ready || !generation || !proxyUrl) {
      const kind: ProbeFailure = this.unsupported.has(serverId) ? 'unsupported' : 'unknown';
      return { ok: false, error: { kind, message: readiness.ready ? 'the prober core is restarting' : readiness.reason } };
    }
    return { ok: true, generation, proxyUrl };
  }

  private explain(failure: RecordedFailure | null, fallback: string): ProbeError {
    if (!failure) return { kind: 'network', message: fallback };
    const hop = failure.upstream ? ' (its upstream server)' : '';
    const detail = this.options.logger.redactor.apply(failure.detail);
    return { kind: failure.kind, message: `${KIND_WORDS[failure.kind]}${hop}: ${detail}` };
  }

  private reasonUnrunnable(server: Server, byId: Map<ServerId, Server>): string | null {
    if (server.via && !byId.has(server.via)) return `dials through a server (${server.via}) that is not in the list`;
    const via = server.via ? byId.get(server.via) : undefined;
    return this.options.cannotHost ? this.options.cannotHost(server, via) : unsupportedReason(server, this.options.core, via);
  }

  private entries(): ProberEntryInput[] {
    const byId = new Map(this.desired.map((s) => [s.id, s]));
    return this.desired
      .filter((s) => !this.unsupported.has(s.id))
      .map((server) => ({
        server,
        ...(server.via ? { via: byId.get(server.via) } : {}),
        antiDpi: this.options.antiDpi?.(server.id) ?? null,
        antiDpiHop: this.options.antiDpiHop?.(server.id) ?? null,
      }));
  }

  private rebuild(): void {
    this.building = this.building.then(() => this.build());
  }

  private async build(): Promise<void> {
    if (this.closed) return;
    const key = this.desiredKey;
    if (key === this.builtKey && this.current?.running) return this.settle();
    const entries = this.entries();
    const relays = this.relays;
    const previous = this.current;
    if (entries.length === 0 && relays.length === 0) {
      this.current = null;
      this.builtKey = key;
      this.lastError = null;
      if (previous) void this.retire(previous, this.options.drainMs ?? 30_000);
      return this.settle();
    }
    const id = ++this.generations;
    // Only a core that dials through relays holds theirs: another would keep a retired one to its drain's end.
    const release = entries.some((e) => e.antiDpiHop) ? this.options.hold?.() : undefined;
    try {
      const generation = await ProberGeneration.start(id, entries, {
        core: this.options.core,
        runtimeDir: this.options.runtimeDir,
        logger: this.options.logger,
        readyTimeoutMs: this.options.readyTimeoutMs,
        outboundMark: this.options.outboundMark,
        fileName: this.options.fileName,
        relays,
        onExit: (g, exit) => this.onExit(g, exit),
      });
      if (release) generation.holding(release);
      if (this.closed) {
        await this.retire(generation, 0);
        return;
      }
      this.current = generation;
      this.builtKey = key;
      this.lastError = null;
      this.history = coreStarted(this.history, this.clock.now());
      const startMs = generation.core?.startMs ?? Number.NaN;
      const relayed = relays.length ? `, ${relays.length} anti-DPI relays for a carrier's prober` : '';
      this.options.logger.info(TAG, `prober core up with ${entries.length} servers (${this.unsupported.size} not runnable${relayed}) in ${startMs} ms`);
      this.emitter.emit('rebuilt', { generation: id, servers: entries.length, unsupported: this.unsupported.size, startMs });
      if (previous) void this.retire(previous, this.options.drainMs ?? 30_000);
      if (this.desiredKey === key) this.settle();
    } catch (error) {
      release?.();
      const message = error instanceof Error ? error.message : String(error);
      this.lastError = this.options.logger.redactor.apply(message);
      this.options.logger.error(TAG, `prober core could not start: ${this.lastError}`);
      this.scheduleRetry(message);
      this.settle();
    }
  }

  private onExit(generation: ProberGeneration, exit: CoreExit): void {
    if (exit.expected || generation !== this.current || this.closed) return;
    this.lastError = exit.description;
    this.builtKey = null;
    this.scheduleRetry(exit.description);
  }

  private scheduleRetry(why: string): void {
    const next = restartAfterExit(this.history, this.clock.now());
    this.history = next.history;
    this.options.logger.warn(TAG, `prober core ${why}; restart ${next.attempt} in ${next.delayMs} ms`);
    this.emitter.emit('coreExit', { description: why, restartInMs: next.delayMs });
    this.pending = true;
    this.restartTimer?.cancel();
    this.restartTimer = this.clock.after(next.delayMs, () => {
      this.restartTimer = null;
      this.rebuild();
    });
  }

  private async retire(generation: ProberGeneration, drainMs: number): Promise<void> {
    if (drainMs > 0) await generation.drained(drainMs);
    await generation.stop();
    if (generation.file) await rm(generation.file, { force: true }).catch(() => undefined);
  }

  /** A build attempt finished (whatever its outcome) and no newer change waits for one. */
  private settle(): void {
    if (this.debounce) return;
    this.pending = false;
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
