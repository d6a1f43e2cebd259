/**
 * The bulk speed test's runtime: it feeds the plan (./policy/speed-test.ts) its events and carries
 * out its commands — downloads through the servers, each with a deadline of its own, one abort
 * for all of them on cancel, results written beside the server's other results and saved with
 * them. It runs only when asked. Its downloads go through the prober that counts them, so their
 * bytes are in the test budget.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import { DEFAULT_SPEED_TEST_BYTES, DEFAULT_SPEED_TEST_PARALLEL, type SpeedTestProgress, type SpeedTestResult } from '../../shared/domain/speed-test';
import type { Clock } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';
import type { DebouncedSaver } from './cache';
import {
  initialSpeedTestState,
  SPEED_TEST_HEADERS_MS,
  SPEED_TEST_STALL_MS,
  type SpeedTestCommand,
  speedTestDeadlineMs,
  type SpeedTestEvent,
  speedTestProgress,
  speedTestResultOf,
  type SpeedTestState,
  stepSpeedTest,
} from './policy/speed-test';
import type { ServerProber } from './ports';
import type { StatusPublisher } from './publisher';
import type { ServerRecords } from './records';
import { DEFAULT_THROUGHPUT_URL } from './throughput';

export interface SpeedTestsDeps {
  /** The prober counting its bytes as speed tests. */
  prober: ServerProber;
  clock: Clock;
  servers: { get(id: ServerId): Server | undefined };
  records: Pick<ServerRecords, 'setSpeedTest'>;
  publisher: Pick<StatusPublisher, 'changed'>;
  saver: Pick<DebouncedSaver, 'schedule'> | null;
  /** Where a server downloads `bytes` from (default: Cloudflare's speed test). */
  url?: (bytes: number) => string;
  log: (line: string) => void;
  onListenerError?: ListenerErrorSink;
}

export interface SpeedTestRequest {
  serverIds: readonly ServerId[];
  bytes?: number;
  parallel?: number;
}

/** A refused start: a run is already under way, or there is nothing to test. */
export class SpeedTestRefused extends Error {}

/** Added to the download's own deadline before the runner gives up on a prober that kept no deadline. */
const GUARD_SLACK_MS = 5000;
/** After an abort, how long a download may take to close before the run stops waiting for it. */
const ABORT_GRACE_MS = 1000;

export class SpeedTests {
  private state: SpeedTestState = initialSpeedTestState;
  private readonly downloads = new Map<ServerId, AbortController>();
  private cancelAskedAt: number | null = null;
  private idleWaiters: (() => void)[] = [];
  readonly progressChanged: Signal<SpeedTestProgress>;
  /** A server's speed was measured (or failed) and written. */
  readonly measured: Signal<{ serverId: ServerId; result: SpeedTestResult }>;
  /** How long the last cancel took from the ask to the last download stopped. */
  lastCancelMs: number | null = null;

  constructor(private readonly deps: SpeedTestsDeps) {
    this.progressChanged = new Signal('speed test progress', deps.onListenerError);
    this.measured = new Signal('speed test result', deps.onListenerError);
  }

  progress(): SpeedTestProgress {
    return speedTestProgress(this.state, this.deps.clock.now());
  }

  /** Starts a run; throws SpeedTestRefused with the reason when it cannot. */
  start(request: SpeedTestRequest): SpeedTestProgress {
    const known = request.serverIds.filter((id) => this.deps.servers.get(id) !== undefined);
    const bytes = request.bytes ?? DEFAULT_SPEED_TEST_BYTES;
    const parallel = request.parallel ?? DEFAULT_SPEED_TEST_PARALLEL;
    const refused = this.feed({ kind: 'start', serverIds: known, bytes, parallel, now: this.deps.clock.now() });
    if (refused) throw new SpeedTestRefused(refused);
    this.deps.log(`speed test: ${this.state.total} server(s), ${bytes} bytes each, ${this.state.parallel} at a time`);
    return this.progress();
  }

  /** Stops every download at once; resolves when the last one has stopped. */
  async cancel(): Promise<SpeedTestProgress> {
    if (this.state.phase === 'running') {
      this.cancelAskedAt = performance.now();
      this.feed({ kind: 'cancel', now: this.deps.clock.now() });
    }
    await this.idle();
    return this.progress();
  }

  /** Resolves when no run is under way. */
  idle(): Promise<void> {
    if (this.state.phase === 'idle') return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private feed(event: SpeedTestEvent): string | null {
    const step = stepSpeedTest(this.state, event);
    this.state = step.state;
    for (const command of step.commands) this.carryOut(command);
    return step.refused;
  }

  private carryOut(command: SpeedTestCommand): void {
    switch (command.kind) {
      case 'download':
        void this.download(command.serverId, command.bytes);
        return;
      case 'abort-all':
        for (const controller of this.downloads.values()) controller.abort();
        return;
      case 'record':
        this.record(command.serverId, command.result);
        return;
      case 'publish':
        this.progressChanged.emit(command.progress);
        return;
      case 'idle':
        this.ended(command.ended);
        return;
    }
  }

  private async download(serverId: ServerId, bytes: number): Promise<void> {
    const controller = new AbortController();
    this.downloads.set(serverId, controller);
    const deadlineMs = speedTestDeadlineMs(bytes);
    const url = (this.deps.url ?? DEFAULT_THROUGHPUT_URL)(bytes);
    // The prober keeps its own deadlines; this one holds even if a prober does not (a proxy that
    // accepts and never answers CONNECT can hang a request whose signal never reaches it). After an
    // abort the prober gets a moment to close its sockets, so idle means the downloads stopped.
    const timers: { cancel(): void }[] = [];
    const gaveUp = new Promise<'gave-up'>((resolve) => {
      timers.push(
        this.deps.clock.after(deadlineMs + GUARD_SLACK_MS, () => {
          controller.abort();
          resolve('gave-up');
        }),
      );
      controller.signal.addEventListener('abort', () => timers.push(this.deps.clock.after(ABORT_GRACE_MS, () => resolve('gave-up'))), { once: true });
    });
    try {
      const course = await Promise.race([
        this.deps.prober.download(serverId, { url, maxBytes: bytes, headersTimeoutMs: SPEED_TEST_HEADERS_MS, stallMs: SPEED_TEST_STALL_MS, deadlineMs, signal: controller.signal }),
        gaveUp,
      ]);
      const now = this.deps.clock.now();
      const result =
        course === 'gave-up'
          ? speedTestResultOf({ kind: 'error', message: `no answer within ${Math.round((deadlineMs + GUARD_SLACK_MS) / 1000)} s` }, now)
          : speedTestResultOf(course.kind === 'error' ? { kind: 'error', message: course.error.message } : course.kind === 'silent' ? { kind: 'silent', waitedMs: SPEED_TEST_HEADERS_MS } : course, now);
      this.downloads.delete(serverId);
      this.feed({ kind: 'finished', serverId, result, now });
    } finally {
      for (const timer of timers) timer.cancel();
      this.downloads.delete(serverId);
    }
  }

  private record(serverId: ServerId, result: SpeedTestResult): void {
    const server = this.deps.servers.get(serverId);
    // A server that left its subscription during the run keeps no result (its records are gone).
    if (!server) return;
    this.deps.records.setSpeedTest(serverId, result);
    const name = server.name;
    this.deps.log(
      result.bytesPerSecond === null
        ? `speed test of ${name}: ${result.error ?? 'failed'}`
        : `speed test of ${name}: ${result.bytes} bytes at ${(result.bytesPerSecond / 1e6).toFixed(2)} MB/s`,
    );
    this.deps.publisher.changed(serverId, { definite: true, immediate: true });
    this.deps.saver?.schedule();
    this.measured.emit({ serverId, result });
  }

  private ended(ended: 'finished' | 'cancelled'): void {
    if (ended === 'cancelled' && this.cancelAskedAt !== null) {
      this.lastCancelMs = Math.round(performance.now() - this.cancelAskedAt);
      this.deps.log(`speed test cancelled: every download stopped ${this.lastCancelMs} ms after the cancel (${this.state.done} of ${this.state.total} done)`);
    } else {
      this.deps.log(`speed test done: ${this.state.done - this.state.failed} measured, ${this.state.failed} failed`);
    }
    this.cancelAskedAt = null;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
