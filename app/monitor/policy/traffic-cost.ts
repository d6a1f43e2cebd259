/**
 * What one test costs in bytes through a server (pure). Counted at the probe: the HTTP request
 * the prober writes, headers included, and the response it reads; the body sizes are the real
 * ones the prober reports. What the prober cannot see is estimated, per connection it opens to
 * the server, from the server's transport and security; the figures below are those of typical
 * handshakes and are documented here because the core keeps no per-outbound counters for the
 * prober's own outbounds:
 *
 * - TLS to the server: ClientHello and Finished about 600 B up; ServerHello, certificate chain
 *   and tickets about 4,000 B down (a two-certificate chain). REALITY sends a short-lived
 *   certificate of its own: about 1,500 B down.
 * - WebSocket / HTTP upgrade: the upgrade request about 250 B up, the 101 answer about 130 B down;
 *   gRPC and h2: the preface, settings and headers about 300 B up and 200 B down; xhttp about
 *   400 B up and 200 B down (its separate legs).
 * - The proxy protocol's own header (VMess, VLESS, Trojan, Shadowsocks salt) about 64 B up and
 *   32 B down, and its framing (AEAD chunks) 18 B per 16 KB each way.
 * - An https test URL is a TLS handshake inside the tunnel too: the same 600 B up and 4,000 B down.
 * - Response headers: about 200 B (generate_204 answers with about that much).
 * The HTTP CONNECT to the core's local inbound stays on loopback and is not counted.
 */
import type { Server } from '../../../shared/domain/server';
import type { ByteCount } from '../../../shared/domain/test-traffic';

export const RESPONSE_HEADER_BYTES = 200;
const TLS_HANDSHAKE: ByteCount = { up: 600, down: 4000 };
const REALITY_HANDSHAKE: ByteCount = { up: 600, down: 1500 };
const PROTOCOL_HEADER: ByteCount = { up: 64, down: 32 };
const FRAME_BYTES = 16 * 1024;
const FRAME_OVERHEAD = 18;

export type ServerShape = Pick<Server, 'transport' | 'security'>;

/** The bytes of a GET as the prober writes it (undici: request line, host, the headers given, blank line). */
export function getRequestBytes(url: string, headers: Readonly<Record<string, string>>): number {
  const parsed = new URL(url);
  const lines = [`GET ${parsed.pathname}${parsed.search} HTTP/1.1`, `host: ${parsed.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.byteLength(`${lines.join('\r\n')}\r\n\r\n`);
}

/** The headers the prober sends on its GETs (app/tunnel/proxy-request.ts, proxy-download.ts). */
export const PROBE_HEADERS = { 'cache-control': 'no-cache', connection: 'close' } as const;
export const DOWNLOAD_HEADERS = { 'cache-control': 'no-cache', connection: 'close', 'accept-encoding': 'identity' } as const;

/** One connection to the server and through it to the URL's host: the handshakes, estimated. */
export function connectionBytes(server: ServerShape, url: string): ByteCount {
  const parts: ByteCount[] = [PROTOCOL_HEADER];
  if (server.security.type === 'tls') parts.push(TLS_HANDSHAKE);
  if (server.security.type === 'reality') parts.push(REALITY_HANDSHAKE);
  switch (server.transport.network) {
    case 'ws':
    case 'httpupgrade':
      parts.push({ up: 250, down: 130 });
      break;
    case 'grpc':
    case 'h2':
      parts.push({ up: 300, down: 200 });
      break;
    case 'xhttp':
      parts.push({ up: 400, down: 200 });
      break;
    default:
      break;
  }
  if (url.startsWith('https:')) parts.push(TLS_HANDSHAKE);
  return sum(parts);
}

export interface Exchange {
  url: string;
  /** Requests sent on the one connection (the delay probe sends two: a warm-up and the timed one). */
  requests: number;
  headers: Readonly<Record<string, string>>;
  /** Whether the response came (headers); a failed exchange costs what was sent. */
  answered: boolean;
  /** Body bytes received, as the prober counted them. */
  bodyBytes: number;
}

/** The bytes of one test through `server`: its connection, its requests and what came back. */
export function exchangeBytes(server: ServerShape, exchange: Exchange): ByteCount {
  const connection = connectionBytes(server, exchange.url);
  const requestBytes = getRequestBytes(exchange.url, exchange.headers) * exchange.requests;
  const up = connection.up + requestBytes + framing(requestBytes);
  if (!exchange.answered) return { up, down: 0 };
  const received = RESPONSE_HEADER_BYTES * exchange.requests + exchange.bodyBytes;
  return { up, down: connection.down + received + framing(received) };
}

/**
 * A reachability test through another server (a chained dial): the connection to the vantage
 * server, inside it the target's own handshakes, then the test URL's request and answer. The
 * vantage's quota pays for all of it.
 */
export function chainedExchangeBytes(vantage: ServerShape, target: ServerShape, url: string, answered: boolean): ByteCount {
  const outer = connectionBytes(vantage, 'http:');
  const inner = exchangeBytes(target, { url, requests: 1, headers: PROBE_HEADERS, answered, bodyBytes: 0 });
  return { up: outer.up + inner.up, down: answered ? outer.down + inner.down : 0 };
}

function framing(bytes: number): number {
  return Math.ceil(bytes / FRAME_BYTES) * FRAME_OVERHEAD;
}

function sum(parts: readonly ByteCount[]): ByteCount {
  return parts.reduce((a, b) => ({ up: a.up + b.up, down: a.down + b.down }), { up: 0, down: 0 });
}
