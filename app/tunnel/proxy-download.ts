/**
 * A download through a core's local HTTP inbound that watches its own course: when the response
 * started, how many body bytes came, and whether they stopped coming with the connection still
 * open (the DPI freeze a URL test never sees, since a ping fits under it). Like a probe it uses a
 * fresh connection and hard deadlines of its own (see proxy-request.ts): one for the headers, one
 * for the whole download, and the stall window after each byte.
 */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import type { DownloadRequest } from './probe-contract';
import { singleUseAgent } from './proxy-request';
import { CancelledError, classifyRequestError, DeadlineError, type RequestFailure } from './request-error';

/** A `DownloadRequest` (the prober's contract) sent through one core's HTTP inbound. */
export interface ProxiedDownload extends DownloadRequest {
  /** The core's HTTP inbound, e.g. "http://127.0.0.1:41000". */
  proxyUrl: string;
  proxyLabel?: string;
}

export type DownloadOutcome =
  | { kind: 'complete' | 'stalled' | 'deadline'; status: number; bytes: number; headersMs: number; bodyMs: number }
  /** The response did not start within `headersTimeoutMs`. */
  | { kind: 'silent' }
  /** `bytes`: body bytes received before it failed. */
  | { kind: 'failed'; failure: RequestFailure; elapsedMs: number; bytes: number };

class Stalled extends Error {}
class HeadersLate extends Error {}

export async function downloadThroughProxy(req: ProxiedDownload): Promise<DownloadOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  if (req.signal?.aborted) return { kind: 'failed', failure: classifyRequestError(new CancelledError()), elapsedMs: 0, bytes: 0 };
  const stop = new AbortController();
  const timers = new Set<NodeJS.Timeout>();
  const after = (ms: number, reason: Error) => {
    const timer = setTimeout(() => stop.abort(reason), ms);
    timers.add(timer);
    return timer;
  };
  after(req.deadlineMs, new DeadlineError(req.deadlineMs));
  const headersTimer = after(req.headersTimeoutMs, new HeadersLate());
  const onCancel = () => stop.abort(new CancelledError());
  req.signal?.addEventListener('abort', onCancel, { once: true });
  const agent = singleUseAgent(req.proxyUrl, req.deadlineMs, false);

  let status = 0;
  let headersMs: number | null = null;
  let bytes = 0;
  let lastByteAt = 0;
  const course = (kind: 'complete' | 'stalled' | 'deadline'): DownloadOutcome => ({
    kind,
    status,
    bytes,
    headersMs: headersMs as number,
    bodyMs: bytes > 0 ? Math.round((lastByteAt - started - (headersMs as number)) * 10) / 10 : 0,
  });
  const guard = new Promise<never>((_, reject) => {
    stop.signal.addEventListener('abort', () => reject(stop.signal.reason), { once: true });
  });
  const work = (async () => {
    const response = await request(req.url, {
      method: 'GET',
      dispatcher: agent,
      signal: stop.signal,
      headers: { 'cache-control': 'no-cache', connection: 'close', 'accept-encoding': 'identity' },
    });
    headersMs = elapsed();
    clearTimeout(headersTimer);
    status = response.statusCode;
    let stall = after(req.stallMs, new Stalled());
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      lastByteAt = performance.now();
      clearTimeout(stall);
      if (bytes >= req.maxBytes) break;
      stall = after(req.stallMs, new Stalled());
    }
    clearTimeout(stall);
  })();
  work.catch(() => undefined);

  try {
    await Promise.race([work, guard]);
    return course('complete');
  } catch (error) {
    if (error instanceof Stalled) return course('stalled');
    if (error instanceof HeadersLate) return { kind: 'silent' };
    if (error instanceof DeadlineError && headersMs !== null) return course('deadline');
    return { kind: 'failed', failure: classifyRequestError(error, req.proxyLabel), elapsedMs: elapsed(), bytes };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    req.signal?.removeEventListener('abort', onCancel);
    if (!stop.signal.aborted) stop.abort(new CancelledError());
    agent.destroy().catch(() => undefined);
  }
}
