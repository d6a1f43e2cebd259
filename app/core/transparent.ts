/**
 * The core's side of system-wide mode on Linux: inbounds that take connections the firewall
 * diverted to them (the original destination travels with the socket), and a socket mark on
 * every outbound so the core's own connections (to servers, and direct ones) are told apart by
 * the rules and leave untouched instead of being diverted back into the core.
 */
type Json = Record<string, unknown>;

export type CaptureMethod = 'tproxy' | 'redirect';

/**
 * What system-wide mode does with the machine's IPv6: `capture` it like IPv4 (the server carries
 * IPv6), or `block` it — refused at once, so a dual-stack program falls back to IPv4 through the
 * tunnel instead of leaking around it or waiting on a server that cannot dial IPv6.
 */
export type Ipv6Capture = 'capture' | 'block';

export interface TransparentOptions {
  /** The port the firewall diverts to; one IPv4 and one IPv6 loopback listener share it. */
  port: number;
  /**
   * `tproxy`: TCP and UDP arrive through TPROXY (IP_TRANSPARENT); `redirect`: TCP only, through
   * NAT REDIRECT, for kernels without the TPROXY target (the original destination comes from
   * SO_ORIGINAL_DST).
   */
  method: CaptureMethod;
  /** SO_MARK put on every outbound socket; the rules let marked packets pass. */
  mark: number;
  /**
   * A loopback HTTP inbound routed to the (marked) direct outbound: the monitor's connectivity
   * check asks through it, so "is the network there" is asked of the network, not of the tunnel.
   */
  directPort: number;
  /** The current server's IPv6 handling (system-wide/policy/ipv6-capture.ts); absent: block. */
  ipv6?: Ipv6Capture;
}

/**
 * sing-box's TUN on Linux: the core takes nothing captured itself (sing-box hands it traffic on
 * its SOCKS5 inbound), it only marks every outbound, and the kernel keeps marked packets out of
 * the device.
 */
export interface OutboundMarkOnly {
  mark: number;
}

/** What system-wide mode asks of the core: transparent inbounds and the mark, or the mark alone. */
export type CoreCapture = TransparentOptions | OutboundMarkOnly;

/** Whether the core takes captured traffic on transparent inbounds of its own. */
export function hasTransparentInbounds(capture: CoreCapture): capture is TransparentOptions {
  return 'port' in capture;
}

export const TRANSPARENT_TAGS = { ipv4: 'transparent-in', ipv6: 'transparent-in-6', direct: 'direct-in' } as const;

/**
 * dokodemo-door with `followRedirect` on 127.0.0.1 and ::1 (TPROXY delivers to a loopback address
 * when the rules name it; nothing listens beyond this machine). Sniffing recovers the site's name
 * from TLS and HTTP, so routing rules by domain apply to captured traffic and the server, not the
 * local resolver, resolves it.
 */
export function transparentInbounds(o: TransparentOptions): Json[] {
  const network = o.method === 'tproxy' ? 'tcp,udp' : 'tcp';
  const direct = { tag: TRANSPARENT_TAGS.direct, listen: '127.0.0.1', port: o.directPort, protocol: 'http', settings: {} };
  return [
    direct,
    ...[
    { tag: TRANSPARENT_TAGS.ipv4, listen: '127.0.0.1' },
    { tag: TRANSPARENT_TAGS.ipv6, listen: '::1' },
  ].map(({ tag, listen }) => ({
    tag,
    listen,
    port: o.port,
    protocol: 'dokodemo-door',
    settings: { network, followRedirect: true },
    streamSettings: { sockopt: { tproxy: o.method } },
    sniffing: { enabled: true, destOverride: ['http', 'tls'] },
  })),
  ];
}

/**
 * Every outbound that opens sockets itself gets `sockopt.mark`. An outbound chained through
 * `proxySettings` dials through its upstream (which is marked) and v2ray ignores its stream
 * settings, so it is left as it is; blackhole opens nothing.
 */
export function markOutbounds(outbounds: readonly Json[], mark: number): Json[] {
  return outbounds.map((outbound) => {
    if (outbound.proxySettings !== undefined || outbound.protocol === 'blackhole') return outbound;
    const stream = (outbound.streamSettings as Json | undefined) ?? {};
    return { ...outbound, streamSettings: { ...stream, sockopt: { ...((stream.sockopt as Json | undefined) ?? {}), mark } } };
  });
}
