/**
 * The outside view through a real core: a failing server's protocol handshake is made *through*
 * a working server (the vantage point) — an outbound for the target chained through the
 * vantage's outbound (`via`), then a URL test — so the target is dialled from the vantage's exit
 * address, not from the user's network.
 *
 * - Only a real answer counts as "reached": the test URL's expected status through the chain.
 *   A plain TCP connect proves nothing (a relay that blackholes the user's address still
 *   accepts), and the handshake and the HTTP answer need the server itself.
 * - Each probe also tests the vantage point alone, at the same time: when the vantage itself does
 *   not answer from here (and the chain did not answer either), the probe is *inconclusive* —
 *   it says nothing about the target and is not a vote. When the chain fails and the core's log
 *   blames the upstream hop (the vantage), the same.
 * - The core is started on demand with just the entries needed (each vantage alone and each
 *   target through it), shared by the probes that arrive together (`batchMs`), and stopped when
 *   idle (`idleMs`). A later probe needing other entries starts a new core; the old one is
 *   retired once its probes are done. It reuses the prober's `ProberGeneration` (config, ports,
 *   readiness, the core's failure reasons) and the deadline-guarded `requestThroughProxy`.
 * - v2ray before 4.35 chains plain-TCP servers only (`proxySettings` drops the chained server's
 *   transport): `unsupported()` says so and the planner does not ask.
 */
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { Server, ServerId } from '../../shared/domain/server';
import { judgeTestUrlAnswer } from '../../shared/domain/test-url';
import { type CoreProfile, unsupportedReason } from '../core';
import type { Logger } from '../log/logger';
import { secretsOf } from '../../shared/domain/secrets';
import { type OutboundFailureKind, type ProberEntryInput, ProberGeneration, type ProxiedResult, requestThroughProxy } from '../tunnel';
import type { VantageProber, VantageProbeResult } from './ports';

export interface ChainedProberOptions {
  core: CoreProfile;
  /** Where its core config (0600) is written. */
  runtimeDir: string;
  logger: Logger;
  /** The test URL (the monitor's). */
  url: () => string;
  /** SO_MARK on the probe core's outbounds (set where system-wide capture may run). */
  outboundMark?: number;
  /** Only this status counts as an answer (by default shared/domain/test-url.ts decides). */
  expectStatus?: number;
  /** Probes arriving within this window share one core start (default 50 ms). */
  batchMs?: number;
  /** The core stops after this long without probes (default 30 s). */
  idleMs?: number;
  /** After a tunnel closed without an answer, how long to wait for the core's reason (default 300 ms). */
  reasonWaitMs?: number;
  readyTimeoutMs?: number;
}

export interface ChainedProberStats {
  coresStarted: number;
  probes: number;
  /** Milliseconds each core took to accept connections. */
  startMs: number[];
  running: boolean;
}

interface Pair {
  vantage: Server;
  target: Server;
}

interface Waiting extends Pair {
  resolve: (generation: ProberGeneration | Error) => void;
}

interface Running {
  generation: ProberGeneration;
  inflight: number;
  idleTimer: NodeJS.Timeout | null;
}

const TAG = 'MONITORING';
const KIND_WORDS: Record<OutboundFailureKind, string> = {
  refused: 'refused the connection',
  reset: 'reset the connection',
  timeout: 'did not answer in time',
  dns: 'has a name that does not resolve',
  tls: 'failed the TLS handshake',
  handshake: 'closed the connection without answering',
  network: 'could not be reached',
};

/** The id of the entry "target dialled through vantage" in the core (one per pair). */
export const chainKey = (vantageId: ServerId, targetId: ServerId): string => `${targetId}@via@${vantageId}`;

export class ChainedProber implements VantageProber {
  private current: Running | null = null;
  private readonly retiring = new Set<Running>();
  private waiting: Waiting[] = [];
  private batchTimer: NodeJS.Timeout | null = null;
  private generations = 0;
  private closed = false;
  private readonly stats_: ChainedProberStats = { coresStarted: 0, probes: 0, startMs: [], running: false };

  constructor(private readonly options: ChainedProberOptions) {}

  unsupported(vantage: Server, target: Server): string | null {
    return unsupportedReason(target, this.options.core, vantage);
  }

  stats(): ChainedProberStats {
    return { ...this.stats_, startMs: [...this.stats_.startMs], running: this.current?.generation.running ?? false };
  }

  async reachThrough(vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult> {
    if (this.closed) return { reached: false, inconclusive: true, error: 'the reachability prober is stopped' };
    const why = this.unsupported(vantage, target);
    if (why) return { reached: false, inconclusive: true, error: why };
    this.options.logger.redactor.add(...secretsOf(vantage), ...secretsOf(target));
    this.stats_.probes++;
    const began = performance.now();
    const generation = await this.generationFor({ vantage, target });
    if (generation instanceof Error) return { reached: false, inconclusive: true, error: `the reachability core could not start: ${this.options.logger.redactor.apply(generation.message)}` };
    const running = this.runningOf(generation);
    running.inflight++;
    if (running.idleTimer) clearTimeout(running.idleTimer);
    running.idleTimer = null;
    try {
      const left = Math.max(1, Math.round(timeoutMs - (performance.now() - began)));
      return await this.probe(generation, vantage, target, left);
    } finally {
      running.inflight--;
      this.afterUse(running);
    }
  }

  /** Stops every core (quit); later probes are inconclusive. */
  async stop(): Promise<void> {
    this.closed = true;
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    for (const w of this.waiting.splice(0)) w.resolve(new Error('stopped'));
    const all = [...this.retiring, ...(this.current ? [this.current] : [])];
    this.current = null;
    await Promise.all(all.map((r) => this.retire(r)));
  }

  // ——— one probe ———

  private async probe(generation: ProberGeneration, vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult> {
    const key = chainKey(vantage.id, target.id);
    const url = this.options.url();
    const judge = (status: number) => judgeTestUrlAnswer(url, status, this.options.expectStatus);
    const began = performance.now();
    const request = (id: ServerId): Promise<ProxiedResult> => {
      const proxyUrl = generation.proxyUrl(id);
      if (!proxyUrl) return Promise.resolve({ ok: false, failure: { kind: 'unknown', message: 'no inbound for it', closedEarly: false, cancelled: false }, elapsedMs: 0 });
      return requestThroughProxy({ proxyUrl, url, timeoutMs, maxBytes: 0, proxyLabel: 'the reachability core’s inbound' });
    };
    const [alone, chained] = await Promise.all([request(vantage.id), request(key)]);
    const chainedJudged = chained.ok ? judge(chained.status) : null;
    if (chained.ok && chainedJudged?.ok) return { reached: true, delayMs: Math.round(chained.headersMs) };
    const aloneJudged = alone.ok ? judge(alone.status) : { ok: false as const, message: alone.failure.message };
    if (!aloneJudged.ok) return { reached: false, inconclusive: true, error: `${vantage.name} itself did not answer from here (${aloneJudged.message})` };
    if (chained.ok) {
      const why = chainedJudged && !chainedJudged.ok ? chainedJudged.message : `HTTP ${chained.status}`;
      return { reached: false, error: `the test URL answered ${why} through ${target.name}` };
    }
    const failure = chained.failure;
    if (failure.cancelled) return { reached: false, inconclusive: true, error: 'cancelled' };
    if (!failure.closedEarly) return { reached: false, error: failure.message };
    const remaining = Math.max(0, timeoutMs - (performance.now() - began));
    const said = await generation.failureSince(key, began, Math.min(this.options.reasonWaitMs ?? 300, remaining));
    if (!said) return { reached: false, error: 'the connection closed before any answer' };
    const detail = this.options.logger.redactor.apply(said.detail);
    if (said.upstream) return { reached: false, inconclusive: true, error: `${vantage.name} ${KIND_WORDS[said.kind]} on the way (${detail})` };
    // Through a chain, a target the vantage cannot connect to shows up as a tunnel closed before
    // the target's handshake: the core reads it as "closed without answering".
    if (said.kind === 'handshake') return { reached: false, error: `the connection closed before ${target.name} answered (${detail})` };
    return { reached: false, error: `${target.name} ${KIND_WORDS[said.kind]} (${detail})` };
  }

  // ——— cores ———

  private generationFor(pair: Pair): Promise<ProberGeneration | Error> {
    const current = this.current;
    if (current?.generation.running && current.generation.ports.has(pair.vantage.id) && current.generation.ports.has(chainKey(pair.vantage.id, pair.target.id))) {
      return Promise.resolve(current.generation);
    }
    return new Promise((resolve) => {
      this.waiting.push({ ...pair, resolve });
      this.batchTimer ??= setTimeout(() => {
        this.batchTimer = null;
        void this.startBatch();
      }, this.options.batchMs ?? 50);
    });
  }

  private async startBatch(): Promise<void> {
    const batch = this.waiting.splice(0);
    if (batch.length === 0 || this.closed) return;
    const entries = entriesFor(batch);
    const id = ++this.generations;
    let generation: ProberGeneration;
    try {
      generation = await ProberGeneration.start(id, entries, {
        core: this.options.core,
        runtimeDir: this.options.runtimeDir,
        logger: this.options.logger,
        readyTimeoutMs: this.options.readyTimeoutMs,
        // Not the prober's "prober-<id>": both number their cores from 1 in the same folder.
        fileName: 'vantage',
        outboundMark: this.options.outboundMark,
        onExit: (g, exit) => {
          if (!exit.expected) this.options.logger.warn(TAG, `reachability: the probe core ${exit.description}`);
          if (this.current?.generation === g) this.current = null;
        },
      });
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.options.logger.warn(TAG, `reachability: the probe core could not start: ${this.options.logger.redactor.apply(failure.message)}`);
      for (const w of batch) w.resolve(failure);
      return;
    }
    this.stats_.coresStarted++;
    const startMs = generation.core?.startMs ?? Number.NaN;
    this.stats_.startMs.push(startMs);
    this.options.logger.debug(TAG, `reachability: probe core ${id} up with ${entries.length} entries in ${startMs} ms`);
    if (this.closed) {
      await generation.stop();
      for (const w of batch) w.resolve(new Error('stopped'));
      return;
    }
    const previous = this.current;
    this.current = { generation, inflight: 0, idleTimer: null };
    if (previous) {
      this.retiring.add(previous);
      this.afterUse(previous);
    }
    for (const w of batch) w.resolve(generation);
    // Nobody may use it after all (every waiter gone): it still stops when idle.
    this.afterUse(this.current);
  }

  private runningOf(generation: ProberGeneration): Running {
    if (this.current?.generation === generation) return this.current;
    for (const r of this.retiring) if (r.generation === generation) return r;
    // Retired and stopped between the batch and now: track it so it is cleaned up like the rest.
    const orphan: Running = { generation, inflight: 0, idleTimer: null };
    this.retiring.add(orphan);
    return orphan;
  }

  private afterUse(running: Running): void {
    if (running.inflight > 0) return;
    if (this.retiring.has(running)) {
      void this.retire(running);
      return;
    }
    if (running.idleTimer) clearTimeout(running.idleTimer);
    running.idleTimer = setTimeout(() => {
      running.idleTimer = null;
      if (running.inflight > 0) return;
      if (this.current === running) this.current = null;
      void this.retire(running);
    }, this.options.idleMs ?? 30_000);
    running.idleTimer.unref?.();
  }

  private async retire(running: Running): Promise<void> {
    if (running.idleTimer) clearTimeout(running.idleTimer);
    running.idleTimer = null;
    this.retiring.delete(running);
    await running.generation.stop();
    if (running.generation.file) await rm(running.generation.file, { force: true }).catch(() => undefined);
  }
}

/** Each vantage alone and each target through its vantage, once each. */
function entriesFor(pairs: readonly Pair[]): ProberEntryInput[] {
  const entries = new Map<string, ProberEntryInput>();
  for (const { vantage, target } of pairs) {
    entries.set(vantage.id, { server: vantage });
    const key = chainKey(vantage.id, target.id);
    // The target under a key of its own: one target is probed through several vantage points.
    entries.set(key, { server: { ...target, id: key, via: vantage.id }, via: vantage });
  }
  return [...entries.values()];
}
