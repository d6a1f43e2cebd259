import { antiDpiOutbound, type AntiDpiOptions, dialThroughAntiDpi, writableAntiDpi } from './anti-dpi';
import { antiDpiInbound, antiDpiInboundRule } from './carried-anti-dpi';
import type { Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { UnsupportedServerError } from './errors';
import { outboundFor } from './outbound';
import { SHARE_TAGS, type ShareInbounds, shareInbounds, shareRoutingRules } from './share-inbounds';
import { type CoreCapture, hasTransparentInbounds, markOutbounds, TRANSPARENT_TAGS, transparentInbounds } from './transparent';
import { type CoreRouting, routingSections } from './routing-config';
import { type GroupRoute, groupOutboundsOf, groupTag } from './group-outbounds';
import { unsupportedReason } from './support';

export type CoreLogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface TunnelConfigOptions {
  server: Server;
  /** The upstream `server` dials through, when it is chained. */
  via?: Server;
  core: CoreProfile;
  /** Where the local proxies listen without a password: loopback. */
  listen: string;
  /** Household sharing: the same proxies on a private LAN address, behind the core's accounts (share-inbounds.ts). */
  share?: ShareInbounds;
  httpPort: number;
  socksPort: number;
  /** The stats API (gRPC) port; always bound to 127.0.0.1. */
  apiPort: number;
  logLevel?: CoreLogLevel;
  /**
   * The core's access log ("127.0.0.1:5000 accepted tcp:example.com:443 [proxy]", printed at
   * every level) names every site the user visits; off unless asked for.
   */
  accessLog?: boolean;
  /**
   * System-wide mode (Linux): the transparent inbounds and the mark on every outbound (TPROXY),
   * or the mark alone (sing-box's TUN).
   */
  transparent?: CoreCapture;
  /** TLS ClientHello fragment / UDP noise for this server; written only where the core has them (anti-dpi.ts). */
  antiDpi?: AntiDpiOptions | null;
  /**
   * A carried server: `antiDpi` is applied by a loopback SOCKS5 inbound on this port that the
   * carrier dials its server through (carried-anti-dpi.ts), not by `proxy`, the hop to the carrier.
   */
  antiDpiInbound?: { port: number; udp: boolean };
  /** Which traffic goes direct or is blocked, and how names are resolved; absent = all to `proxy`. */
  routing?: CoreRouting;
  /** Server groups routing rules send traffic through, each on its own pick beside `proxy`. */
  groups?: readonly GroupRoute[];
}

/** Tags the tunnel controller relies on. */
export const TUNNEL_TAGS = {
  httpIn: 'http-in',
  socksIn: 'socks-in',
  apiIn: 'api',
  proxy: 'proxy',
  /** The upstream of a chained server. */
  via: 'proxy-via',
  direct: 'direct',
  block: 'block',
  api: 'api',
} as const;

/**
 * The inbounds the user's own traffic enters, whose bytes stand in for what was sent towards the
 * server (Auto's stall signal, policy/traffic-delta.ts). The API's and a carried server's anti-DPI
 * inbound are not among them: the latter carries the same bytes a second time, on their way from
 * the carrier to the server, and would count them twice.
 */
export function userInboundTags(o: { share?: boolean; transparent?: boolean }): string[] {
  return [TUNNEL_TAGS.httpIn, TUNNEL_TAGS.socksIn, ...(o.share ? [SHARE_TAGS.httpIn, SHARE_TAGS.socksIn] : []), ...(o.transparent ? [TRANSPARENT_TAGS.ipv4, TRANSPARENT_TAGS.ipv6] : [])];
}

/** Stats counter names for the proxy outbound (StatsService/QueryStats, `reset: true` for deltas). */
export const PROXY_UPLINK_STAT = 'outbound>>>proxy>>>traffic>>>uplink';
export const PROXY_DOWNLINK_STAT = 'outbound>>>proxy>>>traffic>>>downlink';

/**
 * The tunnel's core config: local HTTP + SOCKS5 (UDP on) inbounds, everything to `proxy` (the
 * first outbound is the default route), the stats API on 127.0.0.1:apiPort.
 *
 * What Debian's v2ray 4.34 logs when the server fails (pinned by dial-log.int.test.ts):
 * - **Refused dial** (nothing listens, RST to the SYN): retried, then after ~1 s (trojan,
 *   shadowsocks) to ~2 s (vmess, vless) one line at **Warning** on stdout naming the server:
 *   `2026/11/30 13:38:50 [Warning] [3162183588] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [dial tcp 127.0.0.1:1: connect: connection refused] > v2ray.com/core/common/retry: all retry attempts failed`
 *   (`…/proxy/trojan: failed to find…`, `…/proxy/shadowsocks: …`; a dial timeout reads
 *   `dial tcp …: i/o timeout`). Match `failed to find an available destination` and
 *   `dial tcp (HOST:PORT)`; IPv6 appears as `[::1]:PORT`. The HTTP inbound answers a GET with
 *   503 at that moment; a CONNECT was already answered 200 and is then closed.
 * - **Reset after the TCP connect** (server accepts, then RST): fails within tens of ms to ~1 s,
 *   but it is not a dial failure: at Warning usually only the inbound's `proxy/http: failed to
 *   read response from <target>` (names the target, not the server; GET only) appears, and the
 *   outbound's own line only when the reset beats the request's write (trojan: `failed to flush
 *   payload > write tcp …: connection reset by peer`, a race). At **Info**, always:
 *   `[Info] [id] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/trojan: connection ends > read tcp 127.0.0.1:60826->127.0.0.1:41997: read: connection reset by peer`
 *   (vmess: `…failed to read header > … Unable to Read Header Len > read tcp …: connection reset by peer`).
 * Xray 26 writes the same refused-dial line (without the `v2ray.com/core/` prefix) at **Info**,
 * not Warning (dial-log.int.test.ts runs both cores). The tunnel and the prober therefore run at
 * `info`, where both cores name refused dials and resets; `error` would hide them.
 * The access log is off (`access: "none"`) unless asked for. Without routing sniffing stays off
 * (everything goes to one server, so it only costs time); with routing the SOCKS inbound sniffs
 * HTTP and TLS, so a client that sends addresses instead of names still meets the name rules.
 * The `block` outbound answers plain HTTP with 403, so a blocked request fails at once.
 */
export function tunnelConfig(o: TunnelConfigOptions): Record<string, unknown> {
  const { server, via, core } = o;
  // The inbounds without a password serve this machine only; a LAN device goes through `share`.
  if (!isLoopback(o.listen)) throw new Error(`the local proxies without a password listen on loopback only, not ${o.listen}; share with the LAN through household sharing`);
  const inbound = o.transparent && hasTransparentInbounds(o.transparent) ? o.transparent : null;
  assertDistinctPorts([o.httpPort, o.socksPort, o.apiPort, ...(inbound ? [inbound.port, inbound.directPort] : []), ...(o.antiDpiInbound ? [o.antiDpiInbound.port] : [])]);
  // The shared inbounds have an address of their own, so they may use the loopback ones' ports.
  if (o.share) assertDistinctPorts([o.share.httpPort, o.share.socksPort]);
  const reason = unsupportedReason(server, core, via);
  if (reason) throw new UnsupportedServerError(server.name, reason);
  const outbounds: Record<string, unknown>[] = [outboundFor(server, core, TUNNEL_TAGS.proxy, via ? { viaTag: TUNNEL_TAGS.via } : {})];
  if (via) outbounds.push(outboundFor(via, core, TUNNEL_TAGS.via));
  const antiDpi = writableAntiDpi(o.antiDpi, core, via ?? server);
  // A carried server's connection is the carrier's: it comes back through this inbound.
  const carriedInbound = antiDpi && o.antiDpiInbound ? antiDpiInbound(o.antiDpiInbound.port, o.antiDpiInbound.udp) : null;
  if (antiDpi) {
    // The connection the network sees is the first hop's: that one dials through the options.
    const first = outbounds.length - 1;
    if (!carriedInbound) outbounds[first] = dialThroughAntiDpi(outbounds[first]!);
    outbounds.push(antiDpiOutbound(antiDpi));
  }
  const groups = o.groups ?? [];
  for (const group of groups) {
    const pick = group.pick ? unsupportedReason(group.pick.server, core, group.pick.via) : null;
    if (pick) throw new UnsupportedServerError(group.pick!.server.name, `the pick of the group "${group.name}": ${pick}`);
    outbounds.push(...groupOutboundsOf(group, core));
  }
  const routing = o.routing ? routingSections(o.routing, core, { ...TUNNEL_TAGS, groups: new Set(groups.map((g) => groupTag(g.name))) }) : null;
  outbounds.push(
    { tag: TUNNEL_TAGS.direct, protocol: 'freedom', settings: routing?.directSettings ?? {} },
    { tag: TUNNEL_TAGS.block, protocol: 'blackhole', settings: { response: { type: 'http' } } },
  );
  const transparent = inbound ? transparentInbounds(inbound) : [];
  const sniffing = routing ? { sniffing: { enabled: true, destOverride: ['http', 'tls'] } } : {};
  const shared = o.share ? shareInbounds(o.share, sniffing) : [];
  return {
    log: { loglevel: o.logLevel ?? 'warning', ...(o.accessLog ? {} : { access: 'none' }) },
    // HandlerService: a group's outbound is swapped live for its next pick (Xray; group-swap.ts).
    api: { tag: TUNNEL_TAGS.api, services: groups.length > 0 && core.family === 'xray' ? ['StatsService', 'HandlerService'] : ['StatsService'] },
    stats: {},
    policy: {
      // Inbound uplink too: Xray 26 does not count its proxy outbounds' uplink (traffic-delta.ts).
      system: { statsOutboundUplink: true, statsOutboundDownlink: true, statsInboundUplink: true },
    },
    inbounds: [
      {
        tag: TUNNEL_TAGS.httpIn,
        listen: o.listen,
        port: o.httpPort,
        protocol: 'http',
        settings: { allowTransparent: false },
      },
      {
        tag: TUNNEL_TAGS.socksIn,
        listen: o.listen,
        port: o.socksPort,
        protocol: 'socks',
        // `ip` is the address SOCKS5 UDP ASSOCIATE replies point to; the listen address is right.
        settings: { auth: 'noauth', udp: true, ...udpReplyAddress(o.listen) },
        ...sniffing,
      },
      {
        tag: TUNNEL_TAGS.apiIn,
        listen: '127.0.0.1',
        port: o.apiPort,
        protocol: 'dokodemo-door',
        settings: { address: '127.0.0.1' },
      },
      ...transparent,
      ...shared,
      ...(carriedInbound ? [carriedInbound] : []),
    ],
    outbounds: o.transparent ? markOutbounds(outbounds, o.transparent.mark) : outbounds,
    ...(routing ? { dns: routing.dns } : {}),
    routing: {
      domainStrategy: routing?.domainStrategy ?? 'AsIs',
      rules: [
        ...(carriedInbound ? [antiDpiInboundRule()] : []),
        { type: 'field', inboundTag: [TUNNEL_TAGS.apiIn], outboundTag: TUNNEL_TAGS.api },
        ...(inbound ? [{ type: 'field', inboundTag: [TRANSPARENT_TAGS.direct], outboundTag: TUNNEL_TAGS.direct }] : []),
        ...(o.share ? shareRoutingRules(TUNNEL_TAGS.block) : []),
        // Programs' own DNS queries captured system-wide go through the server even to a LAN
        // resolver, which would otherwise hear every name (bypassLan sends its address direct).
        ...(routing && inbound
          ? [{ type: 'field', inboundTag: [TRANSPARENT_TAGS.ipv4, TRANSPARENT_TAGS.ipv6], port: '53', outboundTag: TUNNEL_TAGS.proxy }]
          : []),
        // A server without IPv6: what reaches the IPv6 inbound past the firewall's refusal (DNS
        // aside, asked through the server above) is refused, never handed to a server that cannot
        // dial it. By inbound, not by address: sniffing may have replaced the address by a name.
        ...(inbound && inbound.ipv6 !== 'capture' ? [{ type: 'field', inboundTag: [TRANSPARENT_TAGS.ipv6], outboundTag: TUNNEL_TAGS.block }] : []),
        ...(routing?.rules ?? []),
      ],
    },
  };
}

function udpReplyAddress(listen: string): { ip?: string } {
  return { ip: listen };
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

/**
 * Inbound ports of one config must differ: v2ray 4.34 accepts two inbounds on one port and then
 * hands each connection to either of them.
 */
export function assertDistinctPorts(ports: readonly number[]): void {
  const seen = new Set<number>();
  for (const port of ports) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid inbound port ${port}`);
    if (seen.has(port)) throw new Error(`inbound port ${port} is used twice in one core config`);
    seen.add(port);
  }
}
