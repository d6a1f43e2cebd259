/**
 * The throughput test, made only when asked: a download through the server, the speed Auto's
 * queue orders unscored servers by.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { DebouncedSaver } from './cache';
import type { ServerProber } from './ports';
import type { StatusPublisher } from './publisher';
import type { ServerRecords } from './records';
import type { ServerDirectory } from './servers';
import type { StatusView } from './status-view';

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

export interface ThroughputTestsDeps {
  prober: ServerProber;
  servers: Pick<ServerDirectory, 'get'>;
  records: Pick<ServerRecords, 'setThroughput'>;
  publisher: Pick<StatusPublisher, 'changed'>;
  saver: Pick<DebouncedSaver, 'schedule'> | null;
  view: Pick<StatusView, 'status'>;
  /** Where the test downloads `bytes` from (default: Cloudflare's speed test). */
  url?: (bytes: number) => string;
  timeoutMs?: number;
  /** The clock's time, stamped on the result. */
  now: () => number;
  log: (line: string) => void;
}

/** The throughput test on request ("measure speed" in a server's details). */
export class ThroughputTests {
  constructor(private readonly deps: ThroughputTestsDeps) {}

  /** Downloads `bytes` through the server; the speed becomes its throughput. Throws a sentence when it cannot. */
  async measure(serverId: ServerId, bytes: number): Promise<ServerStatus> {
    const { servers, records, publisher, log } = this.deps;
    const server = servers.get(serverId);
    if (!server) throw new Error(`no server ${serverId}`);
    const url = (this.deps.url ?? DEFAULT_THROUGHPUT_URL)(bytes);
    try {
      const speed = await measureThroughput(this.deps.prober, server, url, bytes, this.deps.timeoutMs ?? 60_000);
      records.setThroughput(serverId, speed.bytesPerSecond, { bytes: speed.bytes, at: this.deps.now() });
      log(`throughput test of ${server.name}: ${speed.bytes} bytes in ${Math.round(speed.transferMs)} ms = ${(speed.bytesPerSecond / 1e6).toFixed(2)} MB/s`);
    } catch (error) {
      log(`throughput test of ${server.name}: ${(error as Error).message}`);
      throw error;
    }
    publisher.changed(serverId, { definite: true, immediate: true });
    this.deps.saver?.schedule();
    return this.deps.view.status(serverId);
  }
}
