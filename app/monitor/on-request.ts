/**
 * Measurements made only when asked: a TCP connect or an ICMP echo to the server's own address,
 * and the throughput test (a download through the server, the speed Auto's queue orders unscored
 * servers by).
 */
import type { Measurement, ProbeOutcome } from '../../shared/domain/measurement';
import type { Server } from '../../shared/domain/server';
import type { Clock } from '../clock';
import { type IcmpPing, icmpPing } from './icmp';
import type { ServerProber } from './ports';

export type MethodResult = { available: true; outcome: ProbeOutcome; measurement: Measurement } | { available: false; reason: string };

export async function measureDirect(
  prober: ServerProber,
  clock: Clock,
  server: Server,
  method: 'tcp' | 'icmp',
  timeoutMs: number,
  icmp: IcmpPing = icmpPing,
): Promise<MethodResult> {
  let outcome: ProbeOutcome;
  if (method === 'tcp') {
    outcome = await prober.tcpPing(server, timeoutMs);
  } else {
    const result = await icmp(server.address, timeoutMs);
    if ('unavailable' in result) return { available: false, reason: result.reason };
    outcome = result;
  }
  const measurement: Measurement = { at: clock.now(), method, delayMs: outcome.ok ? outcome.delayMs : null };
  if (!outcome.ok) measurement.error = outcome.error.kind;
  return { available: true, outcome, measurement };
}

export interface Throughput {
  bytes: number;
  transferMs: number;
  bytesPerSecond: number;
}

export const DEFAULT_THROUGHPUT_URL = (bytes: number): string => `https://speed.cloudflare.com/__down?bytes=${bytes}`;

/** Downloads `bytes` from `url` through the server; throws a sentence when it cannot. */
export async function measureThroughput(prober: ServerProber, server: Server, url: string, bytes: number, timeoutMs: number): Promise<Throughput> {
  const result = await prober.fetchThrough(server.id, { url, timeoutMs, maxBytes: bytes });
  if (!result.ok) throw new Error(`the download through ${server.name} failed: ${result.error.message}`);
  if (result.status !== 200 || result.body.length === 0) {
    throw new Error(`the download through ${server.name} answered HTTP ${result.status} with ${result.body.length} bytes`);
  }
  // Transfer time after the response started, so the figure is speed rather than latency.
  const afterHeaders = result.elapsedMs - result.headersMs;
  const transferMs = afterHeaders >= 10 ? afterHeaders : result.elapsedMs;
  return { bytes: result.body.length, transferMs, bytesPerSecond: Math.round((result.body.length * 1000) / Math.max(1, transferMs)) };
}
