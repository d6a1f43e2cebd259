/**
 * The target: what the internet looks like from behind a server. `generate_204` for URL tests,
 * `download?bytes=N` for throughput, `bytes/N` for N incompressible (random) bytes — a transfer
 * test whose body no proxy or DPI box along the way can shrink — and the IP-info stand-ins answering for the caller's source
 * address (a server's exit IP) from the lab's geography. It answers on 127.0.0.1 and on ::1 at
 * the same port, with the same handler: a host like the real test URLs', reachable over IPv4 and
 * IPv6, so the monitor's IPv6 check has something real to reach through IPv6-capable servers.
 */
import { createHash, randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IpInfoService } from '../../shared/settings';
import type { Place } from './geo';
import { GatedHttpServer } from './gated-http';
import { IP_INFO_PATHS, LAB_IP_INFO_SERVICES, okReply, rateLimitedReply } from './ipinfo-formats';
import type { LabNetwork } from './network';

export type IpInfoMode = 'ok' | '429' | 'timeout';
export const MAX_DOWNLOAD_BYTES = 1024 ** 3;

export interface TargetCounters {
  generate204: number;
  downloads: number;
  downloadBytes: number;
  ipinfo: Record<IpInfoService, number>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'steadfast-lab-download-');

export class Target {
  private readonly server: GatedHttpServer;
  private readonly modes = new Map<IpInfoService, IpInfoMode>();
  private readonly routes = new Map<string, IpInfoService>();
  readonly counters: TargetCounters;

  /** `placeOf` answers where a source address "is" (home for the user's own address). */
  constructor(
    network: LabNetwork,
    private readonly placeOf: (source: string) => Place,
    private readonly now: () => number = Date.now,
  ) {
    this.server = new GatedHttpServer((req, res, source) => this.handle(req, res, source), network, { ipv6: true });
    this.counters = { generate204: 0, downloads: 0, downloadBytes: 0, ipinfo: {} as Record<IpInfoService, number> };
    for (const service of LAB_IP_INFO_SERVICES) {
      this.modes.set(service, 'ok');
      this.routes.set(IP_INFO_PATHS[service], service);
      this.counters.ipinfo[service] = 0;
    }
    // The spec's example spelling of the ipapi.co stand-in.
    this.routes.set('/ipapi/json', 'ipapi.co');
  }

  get base(): string {
    return `http://${this.server.address}`;
  }

  /** The same service on IPv6 loopback, "http://[::1]:PORT" (same port), or null where ::1 cannot be bound. */
  get ipv6Base(): string | null {
    const address = this.server.ipv6Address;
    return address ? `http://${address}` : null;
  }

  /** The service by host name: "http://localhost:PORT" (the port both addresses share). */
  get baseByName(): string {
    return `http://localhost:${this.server.address.slice(this.server.address.lastIndexOf(':') + 1)}`;
  }

  get connections(): number {
    return this.server.connections;
  }

  ipInfoUrls(): Record<IpInfoService, string> {
    return Object.fromEntries(LAB_IP_INFO_SERVICES.map((s) => [s, `${this.base}${IP_INFO_PATHS[s]}`])) as Record<IpInfoService, string>;
  }

  ipInfoModes(): Record<IpInfoService, IpInfoMode> {
    return Object.fromEntries(this.modes) as Record<IpInfoService, IpInfoMode>;
  }

  setIpInfo(service: IpInfoService, mode: IpInfoMode): void {
    if (!this.modes.has(service)) throw new Error(`unknown IP-info service "${service}"`);
    this.modes.set(service, mode);
  }

  start(): Promise<void> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private handle(req: IncomingMessage, res: ServerResponse, source: string): void {
    const url = new URL(req.url ?? '/', 'http://target.invalid');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/generate_204') {
      this.counters.generate204 += 1;
      res.writeHead(204, { 'content-length': '0' }).end();
      return;
    }
    if (url.pathname === '/download') {
      this.download(url.searchParams.get('bytes') ?? '1048576', res, false);
      return;
    }
    const bytes = /^\/bytes\/([^/]*)$/.exec(url.pathname);
    if (bytes) {
      this.download(bytes[1] as string, res, true, url.searchParams.get('tag'));
      return;
    }
    const service = this.routes.get(url.pathname);
    if (service) {
      this.ipInfo(service, req, res, source);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  }

  /**
   * SHA-256 (hex) of what `/bytes/N?tag=T` served, once it was all written: a test compares what
   * arrived through a server with what left the target. The last 256 tags are kept.
   */
  servedDigest(tag: string): string | undefined {
    return this.digests.get(tag);
  }

  private readonly digests = new Map<string, string>();

  /** `random`: every byte fresh from the CSPRNG, so nothing can compress it. */
  private download(raw: string, res: ServerResponse, random: boolean, tag: string | null = null): void {
    const requested = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(requested)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`bytes must be a whole number, got "${raw}"\n`);
      return;
    }
    const total = Math.min(requested, MAX_DOWNLOAD_BYTES);
    this.counters.downloads += 1;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total), 'cache-control': 'no-store' });
    let left = total;
    const digest = random && tag ? createHash('sha256') : null;
    const pump = (): void => {
      while (left > 0) {
        const size = Math.min(left, CHUNK.length);
        const piece = random ? randomFillSync(Buffer.allocUnsafe(size)) : CHUNK.subarray(0, size);
        left -= piece.length;
        this.counters.downloadBytes += piece.length;
        digest?.update(piece);
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      if (digest && tag) {
        this.digests.set(tag, digest.digest('hex'));
        if (this.digests.size > 256) this.digests.delete(this.digests.keys().next().value as string);
      }
      res.end();
    };
    res.once('close', () => {
      left = 0;
    });
    pump();
  }

  private ipInfo(service: IpInfoService, req: IncomingMessage, res: ServerResponse, source: string): void {
    this.counters.ipinfo[service] += 1;
    const mode = this.modes.get(service) ?? 'ok';
    if (mode === 'timeout') return; // never answer; the socket is closed when the lab stops
    const reply =
      mode === '429'
        ? rateLimitedReply(service)
        : okReply(service, { ip: source, place: this.placeOf(source), userAgent: req.headers['user-agent'] ?? '', nowMs: this.now() });
    res.writeHead(reply.status, reply.headers).end(reply.body);
  }
}
