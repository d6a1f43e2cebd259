/**
 * A bare TCP probe: connect (optionally from a chosen source address), send a few bytes, and see
 * what comes back: data, a reset, a refusal, or nothing at all.
 */
import { createConnection } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface RawProbeResult {
  connected: boolean;
  answered: boolean;
  /** e.g. ECONNRESET, ECONNREFUSED; null when nothing went wrong. */
  error: string | null;
  /** Until the outcome (first byte, error, close) or the wait ran out. */
  ms: number;
}

export function rawProbe(
  host: string,
  port: number,
  options: { localAddress?: string; payload?: Buffer | string; waitMs: number },
): Promise<RawProbeResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const socket = createConnection({ host, port, localAddress: options.localAddress });
    const finish = (answered: boolean, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ connected, answered, error, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false, null), options.waitMs);
    socket.once('connect', () => {
      connected = true;
      if (options.payload !== undefined) socket.write(options.payload);
    });
    socket.once('data', () => finish(true, null));
    socket.once('error', (e: NodeJS.ErrnoException) => finish(false, e.code ?? e.message));
    socket.once('close', () => finish(false, connected ? 'closed' : 'not connected'));
  });
}
