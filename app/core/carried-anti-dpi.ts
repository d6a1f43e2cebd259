/**
 * The anti-DPI options for a server a carrier (sing-box) runs. The fragment and noise are Xray's
 * (its freedom outbound's), so the carrier's connection to the server (the first hop's, for a
 * chained server: the one the network sees) is dialled back through the main core: a
 * loopback-only SOCKS5 inbound on Xray (UDP too for a server reached over UDP), routed by the
 * first rule to the anti-DPI freedom outbound, which dials the server with the options and, in
 * system-wide mode, the routing mark. The carrier's sing-box reaches that inbound through a
 * `socks` outbound its first hop detours through.
 *
 * What cannot work for a kind is left out and said: Xray's freedom cuts a TLS ClientHello sent
 * over TCP, not one inside a QUIC Initial (TUIC, Hysteria, Hysteria2 and WireGuard run over UDP);
 * noise is sent before UDP flows only, so it does nothing for a TCP server; ShadowTLS v3 refuses
 * a ClientHello re-framed into several records. Pure; the rules are in
 * carried-anti-dpi.test.ts.
 */
import { reachedOverUdp, type Server } from '../../shared/domain/server';
import { type AntiDpiOptions, antiDpiActive, antiDpiUnavailable, ANTI_DPI_TAG, writableAntiDpi } from './anti-dpi';
import { type CoreProfile, coreLabel } from './capabilities';
import { pluginOptions, PROTOCOL_NAMES } from './support-names';

type Json = Record<string, unknown>;

/** Xray's loopback SOCKS5 inbound the carrier dials its server through. Not a user inbound: Auto's counters leave it out. */
export const ANTI_DPI_INBOUND_TAG = 'anti-dpi-in';

export interface CarriedAntiDpi {
  /** What the main core writes (null: nothing applies, the carrier dials the server itself). */
  written: AntiDpiOptions | null;
  /** Whether the inbound must relay UDP (the first hop is reached over UDP). */
  udp: boolean;
  /** What of the asked options is not applied, and why (for the log). */
  notApplied: string[];
}

/**
 * The part of a carried server's options the main core can apply to the carrier's connection to
 * `firstHop` (the server, or a chained server's upstream).
 */
export function carriedAntiDpi(options: AntiDpiOptions | null | undefined, main: CoreProfile, firstHop: Server): CarriedAntiDpi {
  const udp = reachedOverUdp(firstHop);
  if (!antiDpiActive(options)) return { written: null, udp, notApplied: [] };
  const notApplied: string[] = [];
  const unavailable = antiDpiUnavailable(options, main, firstHop);
  if (unavailable) notApplied.push(unavailable);
  const writable = writableAntiDpi(options, main, firstHop);
  const kind = PROTOCOL_NAMES[firstHop.protocol];
  let fragment = writable?.fragment ?? null;
  let noise = writable?.noise ?? null;
  if (fragment && udp) {
    notApplied.push(`the TLS ClientHello fragment does not apply to ${kind} (${firstHop.name}): it runs over UDP, and ${coreLabel(main)} cannot cut a handshake inside QUIC`);
    fragment = null;
  }
  if (fragment?.packets === 'tlshello' && checksWholeHello(firstHop)) {
    notApplied.push(
      `the TLS ClientHello fragment in TLS records ("tlshello") would break ShadowTLS v3 (${firstHop.name}): its server checks the ClientHello as one record; give the server its own fragment with a packet range such as 1-1, which splits the bytes without re-framing them`,
    );
    fragment = null;
  }
  if (noise && !udp) {
    notApplied.push(`UDP noise does not apply to ${kind} (${firstHop.name}): it runs over TCP`);
    noise = null;
  }
  const written = { fragment, noise };
  return { written: antiDpiActive(written) ? written : null, udp, notApplied };
}

/**
 * ShadowTLS v3's server authenticates the client by an HMAC over its ClientHello record, read as
 * one record: Xray's "tlshello" fragment makes several of it, the check fails and the server
 * resets the connection (found in the lab, sing-box 1.14.1 on both ends). A packet range keeps the
 * one record, split across TCP segments, and works.
 */
function checksWholeHello(server: Server): boolean {
  if (server.protocol !== 'shadowsocks' || server.plugin?.name !== 'shadow-tls') return false;
  return Number(pluginOptions(server.plugin.options).get('version') ?? '3') >= 3;
}

/**
 * The inbound on the main core: loopback only, no password (only this machine can reach it). The
 * prober's core has one per carried server (each server's own options), hence the tag.
 */
export function antiDpiInbound(port: number, udp: boolean, tag = ANTI_DPI_INBOUND_TAG): Json {
  return { tag, listen: '127.0.0.1', port, protocol: 'socks', settings: { auth: 'noauth', udp, ...(udp ? { ip: '127.0.0.1' } : {}) } };
}

/** Its routing rule, first in the list: nothing the user's routing says may send it elsewhere. */
export function antiDpiInboundRule(inboundTag = ANTI_DPI_INBOUND_TAG, outboundTag = ANTI_DPI_TAG): Json {
  return { type: 'field', inboundTag: [inboundTag], outboundTag };
}
