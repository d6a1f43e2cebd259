import { antiDpiOutbound, type AntiDpiOptions, dialThroughAntiDpi, writableAntiDpi } from './anti-dpi';
import { antiDpiInbound, antiDpiInboundRule } from './carried-anti-dpi';
import type { Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { UnsupportedServerError } from './errors';
import { outboundFor } from './outbound';
import { markOutbounds } from './transparent';
import { assertDistinctPorts, type CoreLogLevel } from './tunnel-config';
import { unsupportedReason } from './support';

export interface ProberEntry {
  server: Server;
  /** The loopback port of this server's own HTTP inbound. */
  port: number;
  /** The upstream `server` dials through, when it is chained. */
  via?: Server;
  /** TLS ClientHello fragment / UDP noise for this server, as the tunnel would use them (anti-dpi.ts). */
  antiDpi?: AntiDpiOptions | null;
}

/**
 * A carried server's anti-DPI options, applied here for the carrier's prober (probe-anti-dpi.ts):
 * a loopback SOCKS5 inbound on `port` its first hop dials through, as the tunnel's main core has.
 */
export interface ProberRelay {
  port: number;
  /** What the main core writes (carriedAntiDpi's `written`). */
  antiDpi: AntiDpiOptions;
  /** The inbound relays UDP too (the first hop is reached over UDP). */
  udp: boolean;
}

export interface ProberConfigOptions {
  entries: ProberEntry[];
  /** Anti-DPI inbounds for the servers a carrier's prober hosts. */
  relays?: readonly ProberRelay[];
  core: CoreProfile;
  listen: string;
  logLevel?: CoreLogLevel;
  /** SO_MARK on every outbound, so system-wide capture lets each probe go straight to its server. */
  outboundMark?: number;
}

export const probeInboundTag = (i: number): string => `probe-in-${i}`;
export const probeOutboundTag = (i: number): string => `probe-${i}`;
export const probeViaTag = (i: number): string => `probe-${i}-via`;
export const probeAntiDpiTag = (i: number): string => `probe-${i}-anti-dpi`;
export const probeRelayInboundTag = (j: number): string => `relay-in-${j}`;
export const probeRelayTag = (j: number): string => `relay-${j}-anti-dpi`;

/**
 * The prober's core config: entry i gets an HTTP inbound `probe-in-<i>` on listen:port, routed by
 * inbound tag to its own outbound `probe-<i>` (a chained entry's upstream is `probe-<i>-via`).
 * No stats, no sniffing, no API: the prober only needs each server reachable through its own
 * port. The first outbound is a blackhole so nothing unrouted leaves. Relay j (a carried server's
 * anti-DPI options, for the carrier's prober) is a loopback SOCKS5 inbound `relay-in-<j>` routed
 * to its freedom outbound `relay-<j>-anti-dpi`.
 *
 * Ports must be distinct: v2ray 4.34 starts happily with two inbounds on one port (it reuses the
 * port) and then splits connections between them, so a probe could silently test the wrong
 * server. A port held by another process, by contrast, makes the core exit at start
 * ("bind: address already in use").
 *
 * Every entry must be runnable: call `unsupportedReason` first and leave unsupported servers out
 * (showing the reason); an unsupported entry here throws UnsupportedServerError naming it.
 */
export function proberConfig(o: ProberConfigOptions): Record<string, unknown> {
  const relays = o.relays ?? [];
  assertDistinctPorts([...o.entries.map((e) => e.port), ...relays.map((r) => r.port)]);
  const inbounds: Record<string, unknown>[] = [];
  const outbounds: Record<string, unknown>[] = [{ tag: 'block', protocol: 'blackhole', settings: {} }];
  const rules: Record<string, unknown>[] = [];
  o.entries.forEach((entry, i) => {
    const reason = unsupportedReason(entry.server, o.core, entry.via);
    if (reason) throw new UnsupportedServerError(entry.server.name, reason);
    inbounds.push({ tag: probeInboundTag(i), listen: o.listen, port: entry.port, protocol: 'http', settings: {} });
    const own: Record<string, unknown>[] = [outboundFor(entry.server, o.core, probeOutboundTag(i), entry.via ? { viaTag: probeViaTag(i) } : {})];
    if (entry.via) own.push(outboundFor(entry.via, o.core, probeViaTag(i)));
    const antiDpi = writableAntiDpi(entry.antiDpi, o.core, entry.via ?? entry.server);
    if (antiDpi) {
      // Each server's own options: the tests measure the path the tunnel would take.
      own[own.length - 1] = dialThroughAntiDpi(own.at(-1)!, probeAntiDpiTag(i));
      own.push(antiDpiOutbound(antiDpi, probeAntiDpiTag(i)));
    }
    outbounds.push(...own);
    rules.push({ type: 'field', inboundTag: [probeInboundTag(i)], outboundTag: probeOutboundTag(i) });
  });
  // Relay j: its own inbound straight to its own freedom outbound, each carried server's options.
  relays.forEach((relay, j) => {
    inbounds.push(antiDpiInbound(relay.port, relay.udp, probeRelayInboundTag(j)));
    outbounds.push(antiDpiOutbound(relay.antiDpi, probeRelayTag(j)));
    rules.push(antiDpiInboundRule(probeRelayInboundTag(j), probeRelayTag(j)));
  });
  return {
    // No access log: one line per probe would drown the dial failures the prober reads.
    log: { loglevel: o.logLevel ?? 'warning', access: 'none' },
    inbounds,
    outbounds: o.outboundMark === undefined ? outbounds : markOutbounds(outbounds, o.outboundMark),
    routing: { domainStrategy: 'AsIs', rules },
  };
}
