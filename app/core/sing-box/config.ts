/**
 * Whole sing-box configs: the carrier (one server behind a local mixed inbound, which the main
 * core's `proxy` outbound dials as SOCKS5) and the prober (every carried server behind its own
 * loopback inbound, routed by inbound as proberConfig does for the v2ray family).
 *
 * What sing-box 1.14.1 logs (captured from the real binary; read by app/tunnel/core-log.ts):
 * - ready: `INFO[0000] sing-box started (0.00s)`, after every inbound listens;
 * - a port taken: `FATAL[0000] start service: start inbound/mixed[carrier-in]: listen tcp 127.0.0.1:PORT: bind: address already in use`;
 * - a failed dial, at ERROR, naming the outbound by tag:
 *   `ERROR[0000] [1556398227 1ms] connection: open connection to example.com:80 using outbound/trojan[proxy]: dial tcp 127.0.0.1:1: connect: connection refused`
 *   (a reset after the connect: `… read tcp 127.0.0.1:51496->127.0.0.1:18201: read: connection reset by peer`;
 *   a TLS server that never answers: `… context deadline exceeded` after ~15 s; QUIC to a closed
 *   UDP port: `… open connection: sendmsg: connection refused`).
 * The mixed inbound then answers the SOCKS5 request with a failure (CONNECT refused: reply 5), or
 * an HTTP request with 502, so the client never waits for the timeout of its own.
 */
import type { Server } from '../../../shared/domain/server';
import type { CoreProfile } from '../capabilities';
import { assertDistinctPorts } from '../tunnel-config';
import { singBoxOutbound, type SingBoxPieces } from './outbound';

type Json = Record<string, unknown>;

export type SingBoxLogLevel = 'debug' | 'info' | 'warn' | 'error';

export const CARRIER_TAGS = { inbound: 'carrier-in', proxy: 'proxy', via: 'proxy-via', antiDpi: 'anti-dpi' } as const;

export interface CarrierConfigOptions {
  server: Server;
  via?: Server;
  core: CoreProfile;
  /** The loopback port of the SOCKS5 / HTTP inbound the main core dials. */
  port: number;
  /** SO_MARK on the connections to the server (system-wide capture). */
  routingMark?: number;
  /**
   * The main core's loopback SOCKS5 inbound that applies the anti-DPI options
   * (carried-anti-dpi.ts): the first hop dials the server through it, and the main core's
   * freedom outbound makes the connection the network sees (with the mark). `udp`: the first hop
   * is reached over UDP, relayed by SOCKS5 UDP ASSOCIATE.
   */
  antiDpi?: { port: number; udp: boolean };
  logLevel?: SingBoxLogLevel;
}

/**
 * The carrier: a mixed (SOCKS5 + HTTP) inbound on 127.0.0.1:port, everything to `proxy` (a
 * chained server dials through `proxy-via`). Only the main core connects to it; it stays on
 * loopback whatever the main core's listen address is.
 */
export function singBoxCarrierConfig(o: CarrierConfigOptions): Json {
  assertDistinctPorts([o.port]);
  // The first hop is the connection the network sees: it alone goes through the anti-DPI options.
  const firstHop = o.antiDpi ? { detour: CARRIER_TAGS.antiDpi } : { routingMark: o.routingMark };
  const pieces = merge(
    singBoxOutbound(o.server, o.core, CARRIER_TAGS.proxy, o.via ? { detour: CARRIER_TAGS.via } : firstHop),
    ...(o.via ? [singBoxOutbound(o.via, o.core, CARRIER_TAGS.via, firstHop)] : []),
    ...(o.antiDpi ? [{ outbounds: [antiDpiHop(o.antiDpi, o.routingMark, CARRIER_TAGS.antiDpi)], endpoints: [] }] : []),
  );
  return {
    log: { level: o.logLevel ?? 'info', timestamp: false },
    inbounds: [{ type: 'mixed', tag: CARRIER_TAGS.inbound, listen: '127.0.0.1', listen_port: o.port }],
    ...sections(pieces),
    route: { final: CARRIER_TAGS.proxy },
  };
}

/** The `socks` outbound to the main core's anti-DPI inbound; TCP only unless the first hop needs UDP. */
function antiDpiHop(antiDpi: { port: number; udp: boolean }, routingMark: number | undefined, tag: string): Json {
  return {
    type: 'socks',
    tag,
    server: '127.0.0.1',
    server_port: antiDpi.port,
    version: '5',
    ...(antiDpi.udp ? {} : { network: 'tcp' }),
    ...(routingMark !== undefined ? { routing_mark: routingMark } : {}),
  };
}

export interface SingBoxProberEntry {
  server: Server;
  via?: Server;
  port: number;
  /**
   * The main prober core's loopback SOCKS5 inbound that applies this server's anti-DPI options,
   * as the carrier's `antiDpi`: the monitor tests the path the tunnel would take.
   */
  antiDpi?: { port: number; udp: boolean };
}

export const singBoxProbeInboundTag = (i: number): string => `probe-in-${i}`;
export const singBoxProbeTag = (i: number): string => `probe-${i}`;
export const singBoxProbeViaTag = (i: number): string => `probe-${i}-via`;
export const singBoxProbeAntiDpiTag = (i: number): string => `probe-${i}-anti-dpi`;

/**
 * The prober: entry i has a mixed inbound `probe-in-<i>` on listen:port routed to its own
 * outbound `probe-<i>` (its upstream `probe-<i>-via`); anything else is rejected. An entry with
 * `antiDpi` dials its first hop through `probe-<i>-anti-dpi`, as the carrier does.
 */
export function singBoxProberConfig(o: { entries: readonly SingBoxProberEntry[]; core: CoreProfile; listen: string; logLevel?: SingBoxLogLevel; outboundMark?: number }): Json {
  assertDistinctPorts(o.entries.map((e) => e.port));
  const inbounds: Json[] = [];
  const rules: Json[] = [];
  const pieces: SingBoxPieces[] = [];
  o.entries.forEach((entry, i) => {
    inbounds.push({ type: 'mixed', tag: singBoxProbeInboundTag(i), listen: o.listen, listen_port: entry.port });
    const firstHop = entry.antiDpi ? { detour: singBoxProbeAntiDpiTag(i) } : { routingMark: o.outboundMark };
    pieces.push(singBoxOutbound(entry.server, o.core, singBoxProbeTag(i), entry.via ? { detour: singBoxProbeViaTag(i) } : firstHop));
    if (entry.via) pieces.push(singBoxOutbound(entry.via, o.core, singBoxProbeViaTag(i), firstHop));
    if (entry.antiDpi) pieces.push({ outbounds: [antiDpiHop(entry.antiDpi, o.outboundMark, singBoxProbeAntiDpiTag(i))], endpoints: [] });
    rules.push({ inbound: [singBoxProbeInboundTag(i)], action: 'route', outbound: singBoxProbeTag(i) });
  });
  rules.push({ action: 'reject' });
  return {
    log: { level: o.logLevel ?? 'info', timestamp: false },
    inbounds,
    ...sections(merge(...pieces)),
    route: { rules },
  };
}

function merge(...all: SingBoxPieces[]): SingBoxPieces {
  return { outbounds: all.flatMap((p) => p.outbounds), endpoints: all.flatMap((p) => p.endpoints) };
}

function sections(pieces: SingBoxPieces): Json {
  return { outbounds: pieces.outbounds, ...(pieces.endpoints.length ? { endpoints: pieces.endpoints } : {}) };
}
