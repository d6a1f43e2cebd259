/**
 * One GET through a core's local HTTP inbound, the way a probe must be made: a fresh connection
 * (a new agent per request, destroyed afterwards: no keep-alive, no reuse), no redirects, and a
 * hard deadline of its own. undici's ProxyAgent can hang when a proxy accepts TCP but never
 * answers CONNECT, and its request signal does not reach a TLS handshake inside the tunnel, so
 * the deadline is a Promise.race guard that settles on time whatever undici does, and the agent
 * is destroyed to free the socket.
 */
import { performance } from 'node:perf_hooks';
import { Pool, ProxyAgent, request } from 'undici';
import { CancelledError, classifyRequestError, DeadlineError, type RequestFailure } from './request-error';

export interface ProxiedRequest {
  /** The core's HTTP inbound, e.g. "http://127.0.0.1:41000". */
  proxyUrl: string;
  url: string;
  timeoutMs: number;
  /** Bytes of body to keep; the rest is not read. 0 discards the body once headers arrived. */
  maxBytes: number;
  signal?: AbortSignal;
  /** Names the inbound in failure messages. */
  proxyLabel?: string;
  /**
   * Sent as the Host header when the URL names an address rather than the host; undici also
   * takes the TLS server name (SNI, and the name the certificate is checked against) from it.
   */
  hostHeader?: string;
  /**
   * Send the request twice on one fresh connection and time the second: one round trip through
   * the server, without the TCP, TLS and proxy handshakes of a new connection, so the figure
   * compares servers of any protocol by their latency ("unified delay"). The deadline covers both.
   */
  warmUp?: boolean;
}

export type ProxiedResult =
  | { ok: true; status: number; body: Buffer; headersMs: number; elapsedMs: number; truncated: boolean; coldHeadersMs?: number }
  | { ok: false; failure: RequestFailure; elapsedMs: number };

export async function requestThroughProxy(req: ProxiedRequest): Promise<ProxiedResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const stop = new AbortController();
  if (req.signal?.aborted) return { ok: false, failure: classifyRequestError(new CancelledError()), elapsedMs: 0 };
  const timer = setTimeout(() => stop.abort(new DeadlineError(req.timeoutMs)), req.timeoutMs);
  const onCancel = () => stop.abort(new CancelledError());
  req.signal?.addEventListener('abort', onCancel, { once: true });

  const agent = singleUseAgent(req.proxyUrl, req.timeoutMs, req.warmUp ?? false);

  const guard = new Promise<never>((_, reject) => {
    stop.signal.addEventListener('abort', () => reject(stop.signal.reason), { once: true });
  });
  const work = (async () => {
    let coldHeadersMs: number | undefined;
    if (req.warmUp) {
      const warm = await request(req.url, { method: 'GET', dispatcher: agent, signal: stop.signal, headers: { 'cache-control': 'no-cache', ...(req.hostHeader ? { host: req.hostHeader } : {}) } });
      coldHeadersMs = elapsed();
      await warm.body.dump();
    }
    const sentAt = performance.now();
    const response = await request(req.url, {
      method: 'GET',
      dispatcher: agent,
      signal: stop.signal,
      headers: { 'cache-control': 'no-cache', connection: 'close', ...(req.hostHeader ? { host: req.hostHeader } : {}) },
    });
    const headersMs = req.warmUp ? Math.round((performance.now() - sentAt) * 10) / 10 : elapsed();
    const { body, truncated } = await readLimited(response.body, req.maxBytes);
    return { status: response.statusCode, headersMs, body, truncated, ...(coldHeadersMs !== undefined ? { coldHeadersMs } : {}) };
  })();
  work.catch(() => undefined);

  try {
    const done = await Promise.race([work, guard]);
    return { ok: true, ...done, elapsedMs: elapsed() };
  } catch (error) {
    return { ok: false, failure: classifyRequestError(error, req.proxyLabel), elapsedMs: elapsed() };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onCancel);
    if (!stop.signal.aborted) stop.abort(new CancelledError());
    agent.destroy().catch(() => undefined);
  }
}

/**
 * One connection through the proxy (a pair of requests on it with `pipelined`: pipelining 0 would
 * close it after the first), never reused beyond one call, with timeouts that cannot outlive the
 * caller's deadline. The caller destroys it.
 */
export function singleUseAgent(proxyUrl: string, timeoutMs: number, pipelined: boolean): ProxyAgent {
  const limit = Math.max(1, timeoutMs);
  const pipelining = pipelined ? 1 : 0;
  return new ProxyAgent({
    uri: proxyUrl,
    clientFactory: (origin, options) => new Pool(origin, { ...options, connections: 1, pipelining, headersTimeout: limit, bodyTimeout: limit }),
    connections: 1,
    pipelining,
    connect: { timeout: limit },
    headersTimeout: limit,
    bodyTimeout: limit,
  });
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  if (maxBytes <= 0) {
    body.destroy();
    return { body: Buffer.alloc(0), truncated: false };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
