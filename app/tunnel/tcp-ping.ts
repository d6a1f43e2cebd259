/**
 * Connect time to a server's own address, straight from this machine (never through a proxy).
 * The name is resolved first and not counted, so the figure is the TCP handshake alone.
 */
import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ProbeFailure, ProbeOutcome } from '../../shared/domain/measurement';
import type { Server } from '../../shared/domain/server';

const CODE_KINDS: Record<string, ProbeFailure> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  ETIMEDOUT: 'timeout',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EAI_NODATA: 'dns',
  ENETUNREACH: 'network',
  EHOSTUNREACH: 'network',
  EHOSTDOWN: 'network',
  ENETDOWN: 'network',
  EADDRNOTAVAIL: 'network',
};

function failed(kind: ProbeFailure, message: string): ProbeOutcome {
  return { ok: false, error: { kind, message } };
}

export async function tcpPing(server: Pick<Server, 'address' | 'port'>, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
  if (signal?.aborted) return failed('unknown', 'cancelled');
  const began = performance.now();
  let address: string;
  let family: number;
  try {
    const resolved = await Promise.race([
      lookup(server.address),
      new Promise<never>((_, reject) => setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEDOUT' })), timeoutMs).unref()),
    ]);
    address = resolved.address;
    family = resolved.family;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    return code === 'ETIMEDOUT' ? failed('timeout', `name lookup took longer than ${timeoutMs} ms`) : failed('dns', `cannot resolve ${server.address} (${code || 'error'})`);
  }
  const remaining = Math.max(1, timeoutMs - (performance.now() - began));
  return new Promise<ProbeOutcome>((resolve) => {
    const started = performance.now();
    const socket = connect({ host: address, port: server.port, family });
    const finish = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish(failed('timeout', `no TCP answer within ${timeoutMs} ms`)), remaining);
    const onAbort = () => finish(failed('unknown', 'cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish({ ok: true, delayMs: Math.round((performance.now() - started) * 10) / 10 }));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const kind = CODE_KINDS[error.code ?? ''] ?? 'unknown';
      finish(failed(kind, `TCP connect failed: ${error.code ?? error.message}`));
    });
  });
}
