/**
 * A `ServerProber` on a FakeClock for the monitor's rule tests: each server answers, fails,
 * times out or hangs as the test says, at exact fake times, and every call is recorded (who,
 * when, how many at once per front address) so tests can assert "pinged once", "at most 2 at a
 * time", "no probes while idle".
 */
import type { ProbeError, ProbeFailure, ProbeOutcome } from '../../../shared/domain/measurement';
import type { Server, ServerId } from '../../../shared/domain/server';
import type { Clock } from '../../clock';
import type { TransferCourse } from '../policy/transfer';
import type { DownloadRequest, FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber } from '../ports';

export type FakeBehaviour =
  /** Answers after this many ms (a timeout when that is past the probe's deadline). */
  | { answerMs: number }
  /** Fails with this error after this many ms. */
  | { failMs: number; kind?: ProbeFailure; message?: string }
  /** No answer: the probe's own deadline ends it (what a blackholed server looks like). */
  | { silent: true }
  /** Never returns, ignoring its deadline and abort signal (a dial into a native library). */
  | { hang: true };

/** What a fetch through a server answers (IP-info stand-ins, downloads). */
export type FakeFetchAnswer =
  | { status: number; body: string | Buffer; afterMs?: number }
  | { fail: ProbeFailure; afterMs?: number; message?: string };

export type FakeFetchHandler = (serverId: ServerId, url: string, request: FetchThroughRequest) => FakeFetchAnswer;

/** How a download through a server goes: its course, ending this many ms after it began. */
export interface FakeDownload {
  course: TransferCourse;
  afterMs: number;
}

export type FakeDownloadHandler = (serverId: ServerId, request: DownloadRequest) => FakeDownload;

/** A healthy download: the whole body at about 2 MB/s after 100 ms of headers. */
export const fastDownload: FakeDownloadHandler = (_id, request) => {
  const bodyMs = Math.round(request.maxBytes / 2000);
  return { course: { kind: 'complete', status: 200, bytes: request.maxBytes, headersMs: 100, bodyMs }, afterMs: 100 + bodyMs };
};

export interface FakeCall {
  kind: 'probe' | 'fetch' | 'tcp' | 'download';
  serverId: ServerId;
  url?: string;
  /** The Host header a fetch asked for (the IPv6 check's address URLs). */
  hostHeader?: string;
  at: number;
  timeoutMs: number;
  endedAt: number | null;
  outcome?: ProbeOutcome;
}

export class FakeProber implements ServerProber {
  readonly calls: FakeCall[] = [];
  /** Highest number of probes ever in flight at once, per front address. */
  readonly maxInFlightByFront = new Map<string, number>();
  maxInFlight = 0;
  private inFlightByFront = new Map<string, number>();
  private inFlight = 0;
  private behaviours = new Map<ServerId, FakeBehaviour>();
  private queued = new Map<ServerId, FakeBehaviour[]>();
  private readiness_ = new Map<ServerId, Readiness>();
  fetchHandler: FakeFetchHandler = () => ({ fail: 'refused', message: 'no fetch handler in this test' });
  downloadHandler: FakeDownloadHandler = fastDownload;
  /** Test URLs that answer the wrong status through every server (a URL blocked at the exits). */
  readonly deadUrls = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly frontOf: (serverId: ServerId) => string = (id) => id,
    private readonly defaultBehaviour: FakeBehaviour = { answerMs: 100 },
  ) {}

  /** Every later probe of `id` behaves like this (after any queued behaviours). */
  set(id: ServerId, behaviour: FakeBehaviour): this {
    this.behaviours.set(id, behaviour);
    return this;
  }

  /** The next probes of `id` behave like these, in order; then the `set` behaviour applies. */
  queue(id: ServerId, ...behaviours: FakeBehaviour[]): this {
    this.queued.set(id, [...(this.queued.get(id) ?? []), ...behaviours]);
    return this;
  }

  setReady(id: ServerId, readiness: Readiness): this {
    this.readiness_.set(id, readiness);
    return this;
  }

  readiness(serverId: ServerId): Readiness {
    return this.readiness_.get(serverId) ?? { ready: true };
  }

  probesOf(id: ServerId, kind: FakeCall['kind'] = 'probe'): FakeCall[] {
    return this.calls.filter((c) => c.serverId === id && c.kind === kind);
  }

  probeCount(kind: FakeCall['kind'] = 'probe'): number {
    return this.calls.filter((c) => c.kind === kind).length;
  }

  probe(serverId: ServerId, request: ProbeRequest): Promise<ProbeOutcome> {
    const planned = this.queued.get(serverId)?.shift() ?? this.behaviours.get(serverId) ?? this.defaultBehaviour;
    const behaviour: FakeBehaviour = this.deadUrls.has(request.url)
      ? { failMs: 50, kind: 'http-status', message: 'HTTP 403 instead of 204' }
      : planned;
    const call: FakeCall = { kind: 'probe', serverId, url: request.url, at: this.clock.now(), timeoutMs: request.timeoutMs, endedAt: null };
    this.calls.push(call);
    const front = this.frontOf(serverId);
    this.enter(front);
    return new Promise<ProbeOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: ProbeOutcome) => {
        if (settled) return;
        settled = true;
        timer?.cancel();
        request.signal?.removeEventListener('abort', onAbort);
        call.endedAt = this.clock.now();
        call.outcome = outcome;
        this.leave(front);
        resolve(outcome);
      };
      const timeout = (): ProbeOutcome => ({ ok: false, error: { kind: 'timeout', message: `no answer within ${request.timeoutMs} ms` } });
      let timer: { cancel(): void } | undefined;
      if ('hang' in behaviour) return; // never settles, ignores its deadline and abort
      const onAbort = () => settle({ ok: false, error: { kind: 'network', message: 'aborted' } });
      if (request.signal?.aborted) return onAbort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      if ('silent' in behaviour) {
        timer = this.clock.after(request.timeoutMs, () => settle(timeout()));
      } else if ('answerMs' in behaviour) {
        if (behaviour.answerMs > request.timeoutMs) timer = this.clock.after(request.timeoutMs, () => settle(timeout()));
        else timer = this.clock.after(behaviour.answerMs, () => settle({ ok: true, delayMs: behaviour.answerMs }));
      } else {
        const error: ProbeError = { kind: behaviour.kind ?? 'refused', message: behaviour.message ?? 'connection refused' };
        if (behaviour.failMs > request.timeoutMs) timer = this.clock.after(request.timeoutMs, () => settle(timeout()));
        else timer = this.clock.after(behaviour.failMs, () => settle({ ok: false, error }));
      }
    });
  }

  fetchThrough(serverId: ServerId, request: FetchThroughRequest): Promise<FetchThroughResult> {
    const call: FakeCall = { kind: 'fetch', serverId, url: request.url, at: this.clock.now(), timeoutMs: request.timeoutMs, endedAt: null };
    if (request.hostHeader !== undefined) call.hostHeader = request.hostHeader;
    this.calls.push(call);
    const answer = this.fetchHandler(serverId, request.url, request);
    const after = Math.min(answer.afterMs ?? 50, request.timeoutMs);
    const timedOut = (answer.afterMs ?? 50) > request.timeoutMs;
    return new Promise((resolve) => {
      this.clock.after(after, () => {
        call.endedAt = this.clock.now();
        if (timedOut) {
          resolve({ ok: false, error: { kind: 'timeout', message: `no answer within ${request.timeoutMs} ms` }, elapsedMs: after });
        } else if ('fail' in answer) {
          resolve({ ok: false, error: { kind: answer.fail, message: answer.message ?? answer.fail }, elapsedMs: after });
        } else {
          const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
          const limited = request.maxBytes !== undefined ? body.subarray(0, request.maxBytes) : body;
          resolve({ ok: true, status: answer.status, body: limited, headersMs: after, elapsedMs: after });
        }
      });
    });
  }

  download(serverId: ServerId, request: DownloadRequest): Promise<TransferCourse> {
    const call: FakeCall = { kind: 'download', serverId, url: request.url, at: this.clock.now(), timeoutMs: request.deadlineMs, endedAt: null };
    this.calls.push(call);
    // As the real prober: a server it cannot reach yet fails at once, without a download.
    const readiness = this.readiness(serverId);
    if (!readiness.ready) {
      call.endedAt = call.at;
      return Promise.resolve({ kind: 'error', error: { kind: 'network', message: readiness.reason } });
    }
    const front = this.frontOf(serverId);
    this.enter(front);
    const planned = this.downloadHandler(serverId, request);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (course: TransferCourse) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        call.endedAt = this.clock.now();
        this.leave(front);
        resolve(course);
      };
      const timer = this.clock.after(planned.afterMs, () => settle(planned.course));
      request.signal?.addEventListener('abort', () => settle({ kind: 'error', error: { kind: 'network', message: 'aborted' } }), { once: true });
    });
  }

  tcpPing(server: Server, timeoutMs: number): Promise<ProbeOutcome> {
    const behaviour = this.behaviours.get(server.id) ?? this.defaultBehaviour;
    const call: FakeCall = { kind: 'tcp', serverId: server.id, at: this.clock.now(), timeoutMs, endedAt: null };
    this.calls.push(call);
    // A direct connect takes about a third of a URL test's round trips.
    const ms = 'answerMs' in behaviour ? Math.max(1, Math.round(behaviour.answerMs / 3)) : timeoutMs;
    return new Promise((resolve) => {
      this.clock.after(ms, () => {
        call.endedAt = this.clock.now();
        resolve('answerMs' in behaviour ? { ok: true, delayMs: ms } : { ok: false, error: { kind: 'timeout', message: 'no answer' } });
      });
    });
  }

  private enter(front: string): void {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const n = (this.inFlightByFront.get(front) ?? 0) + 1;
    this.inFlightByFront.set(front, n);
    this.maxInFlightByFront.set(front, Math.max(this.maxInFlightByFront.get(front) ?? 0, n));
  }

  private leave(front: string): void {
    this.inFlight--;
    this.inFlightByFront.set(front, (this.inFlightByFront.get(front) ?? 1) - 1);
  }
}

/** A direct check the test flips between up and down, counting its calls. */
export class FakeDirectCheck {
  up = true;
  calls = 0;
  async reachable(): Promise<boolean> {
    this.calls++;
    return this.up;
  }
}
