import type { Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { UnsupportedServerError } from './errors';
import { outboundFor } from './outbound';
import { unsupportedReason } from './support';

export type CoreLogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface TunnelConfigOptions {
  server: Server;
  /** The upstream `server` dials through, when it is chained. */
  via?: Server;
  core: CoreProfile;
  /** Where the local proxies listen: 127.0.0.1 unless the user opted into LAN sharing. */
  listen: string;
  httpPort: number;
  socksPort: number;
  /** The stats API (gRPC) port; always bound to 127.0.0.1. */
  apiPort: number;
  logLevel?: CoreLogLevel;
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

/** Stats counter names for the proxy outbound (StatsService/QueryStats, `reset: true` for deltas). */
export const PROXY_UPLINK_STAT = 'outbound>>>proxy>>>traffic>>>uplink';
export const PROXY_DOWNLINK_STAT = 'outbound>>>proxy>>>traffic>>>downlink';

/**
 * The tunnel's core config: local HTTP + SOCKS5 (UDP on) inbounds, everything to `proxy` (the
 * first outbound is the default route), the stats API on 127.0.0.1:apiPort.
 *
 * What the core logs (checked with Debian's v2ray 4.34, see core.int.test.ts): a dial the server
 * refuses or resets is retried for about 2 s and then logged at **warning** level, e.g.
 *   `2024/01/01 00:00:00 [Warning] [1234567] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [dial tcp 127.0.0.1:1: connect: connection refused ...] > v2ray.com/core/common/retry: all retry attempts failed`
 * so the default level `warning` keeps dial failures (with the server's host:port) in the log
 * while per-connection "accepted" lines (info) stay out. `error` would hide them: the tunnel
 * controller should never go above `warning`. Sniffing stays off (the app routes everything to
 * one server, so it only costs time).
 */
export function tunnelConfig(o: TunnelConfigOptions): Record<string, unknown> {
  const { server, via, core } = o;
  const reason = unsupportedReason(server, core, via);
  if (reason) throw new UnsupportedServerError(server.name, reason);
  const outbounds: Record<string, unknown>[] = [outboundFor(server, core, TUNNEL_TAGS.proxy, via ? { viaTag: TUNNEL_TAGS.via } : {})];
  if (via) outbounds.push(outboundFor(via, core, TUNNEL_TAGS.via));
  outbounds.push(
    { tag: TUNNEL_TAGS.direct, protocol: 'freedom', settings: {} },
    { tag: TUNNEL_TAGS.block, protocol: 'blackhole', settings: {} },
  );
  return {
    log: { loglevel: o.logLevel ?? 'warning' },
    api: { tag: TUNNEL_TAGS.api, services: ['StatsService'] },
    stats: {},
    policy: {
      system: { statsOutboundUplink: true, statsOutboundDownlink: true },
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
        settings: { auth: 'noauth', udp: true, ip: udpReplyAddress(o.listen) },
      },
      {
        tag: TUNNEL_TAGS.apiIn,
        listen: '127.0.0.1',
        port: o.apiPort,
        protocol: 'dokodemo-door',
        settings: { address: '127.0.0.1' },
      },
    ],
    outbounds,
    routing: {
      domainStrategy: 'AsIs',
      rules: [{ type: 'field', inboundTag: [TUNNEL_TAGS.apiIn], outboundTag: TUNNEL_TAGS.api }],
    },
  };
}

/** 0.0.0.0 / :: (LAN sharing) cannot be a UDP reply address; the core then uses the local one. */
function udpReplyAddress(listen: string): string | undefined {
  return listen === '0.0.0.0' || listen === '::' ? undefined : listen;
}
