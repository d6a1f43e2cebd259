/**
 * A server as the app knows it: what a subscription entry parses to, plus the identity the app
 * gives it. Protocol code lives in the core (v2ray / Xray / sing-box); this is only the data a
 * core config is generated from.
 */

export const PROTOCOLS = [
  'vmess',
  'vless',
  'trojan',
  'shadowsocks',
  'hysteria2',
  'tuic',
  'wireguard',
  'socks',
  'http',
  /** Hysteria (v1), AnyTLS and NaiveProxy: carried by sing-box (no v2ray-family core has them). */
  'hysteria',
  'anytls',
  'naive',
] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const NETWORKS = ['tcp', 'ws', 'grpc', 'h2', 'httpupgrade', 'xhttp', 'kcp', 'quic'] as const;
export type Network = (typeof NETWORKS)[number];

/** How the bytes travel between client and server (the "stream settings" of the v2ray family). */
export interface Transport {
  network: Network;
  /** ws / h2 / httpupgrade / xhttp path, grpc has serviceName instead. */
  path?: string;
  /**
   * Host header (ws, httpupgrade, xhttp), host list (h2, comma separated), or grpc's :authority
   * (links' `authority`, Xray's grpcSettings.authority; v2rayN keeps it as the host too).
   */
  host?: string;
  /** grpc service name. */
  serviceName?: string;
  /** grpc "multi" mode (Xray) versus the default "gun". */
  grpcMultiMode?: boolean;
  /** tcp header obfuscation ("http") or kcp / quic header type ("srtp", "wechat-video", ...). */
  headerType?: string;
  /** kcp seed. */
  seed?: string;
  /** xhttp mode ("auto", "packet-up", "stream-up", "stream-one"). */
  mode?: string;
  /**
   * xhttp's further settings as the share link's `extra` JSON carries them (padding, a separate
   * download leg through another address, …), written to Xray as `xhttpSettings.extra`.
   */
  xhttpExtra?: Record<string, unknown>;
  /** quic security and key. */
  quicSecurity?: string;
  quicKey?: string;
}

export const SECURITIES = ['none', 'tls', 'reality'] as const;
export type SecurityType = (typeof SECURITIES)[number];

export interface Security {
  type: SecurityType;
  sni?: string;
  alpn?: string[];
  /** uTLS fingerprint ("chrome", "firefox", ...): Xray only. */
  fingerprint?: string;
  allowInsecure?: boolean;
  /**
   * Certificate pins (TLS only): the SHA-256 of the server's whole certificate (DER), lower-case
   * hex; a certificate matching any of them is accepted. Share links' `pcs`, Xray's
   * `pinnedPeerCertSha256`, Hysteria's `pinSHA256`, Mihomo's `fingerprint`.
   */
  pinnedCertSha256?: string[];
  /** The name to verify the certificate against instead of the SNI (TLS only): `vcn`, Xray's `verifyPeerCertByName`. */
  verifyName?: string;
  /**
   * Encrypted Client Hello (TLS only): the server's ECHConfigList in base64, as a link's `ech=`
   * carries it (what its DNS HTTPS record publishes), so the TLS handshake shows only the
   * config's public name. Xray's `tlsSettings.echConfigList`; sing-box's `tls.ech.config` (the
   * same base64 between `-----BEGIN ECH CONFIGS-----` lines).
   */
  ech?: string;
  /** REALITY (Xray only). */
  publicKey?: string;
  shortId?: string;
  spiderX?: string;
  /**
   * REALITY's ML-DSA-65 key (links' `pqv`, Xray's `mldsa65Verify`): Xray then also checks the
   * server's post-quantum signature, as the provider asked.
   */
  mldsa65Verify?: string;
}

interface EndpointBase {
  /** Host name, IPv4 or IPv6 address (IPv6 without brackets). */
  address: string;
  port: number;
  transport: Transport;
  security: Security;
}

export interface VmessEndpoint extends EndpointBase {
  protocol: 'vmess';
  uuid: string;
  alterId: number;
  /** vmess body cipher: auto, aes-128-gcm, chacha20-poly1305, none, zero. */
  cipher: string;
}

export interface VlessEndpoint extends EndpointBase {
  protocol: 'vless';
  uuid: string;
  /** e.g. "xtls-rprx-vision" (Xray only). */
  flow?: string;
  encryption: string;
}

export interface TrojanEndpoint extends EndpointBase {
  protocol: 'trojan';
  password: string;
}

export interface ShadowsocksEndpoint extends EndpointBase {
  protocol: 'shadowsocks';
  method: string;
  password: string;
  /** SIP003 plugin, e.g. { name: "obfs-local", options: "obfs=http;obfs-host=x" }. */
  plugin?: { name: string; options: string };
}

export interface Hysteria2Endpoint extends EndpointBase {
  protocol: 'hysteria2';
  password: string;
  /**
   * Port hopping: the ports the client hops between (`443,20000-30000`); `port` is the first of
   * them. Run only by a core whose Hysteria transport hops (Xray's `udphop`), never cut to one port.
   */
  portHopping?: string;
  obfs?: { type: string; password: string };
  upMbps?: number;
  downMbps?: number;
}

export interface TuicEndpoint extends EndpointBase {
  protocol: 'tuic';
  uuid: string;
  password: string;
  congestionControl?: string;
  udpRelayMode?: string;
}

/** Hysteria v1 (`hysteria://`, Clash `type: hysteria`): QUIC with TLS, its own congestion control. */
export interface HysteriaEndpoint extends EndpointBase {
  protocol: 'hysteria';
  /** The auth string (`auth=` / `auth-str`); absent when the server asks for none. */
  auth?: string;
  /** The `xplus` obfuscation's password (`obfsParam=` / `obfs`), the only obfuscation Hysteria v1 has. */
  obfs?: string;
  /** Hysteria v1 needs both speeds: its congestion control starts from them. */
  upMbps: number;
  downMbps: number;
  /** Port hopping (`mport=`): ports and ranges as `443,20000-30000`; `port` is the first. */
  portHopping?: string;
  /**
   * How the QUIC packets travel (`protocol=`): `udp` is the only one a current client speaks;
   * `faketcp` and `wechat-video` need the original Hysteria client.
   */
  carrier?: string;
}

/** AnyTLS (`anytls://`): a password over TLS, with its own padding against length fingerprints. */
export interface AnytlsEndpoint extends EndpointBase {
  protocol: 'anytls';
  password: string;
}

/** NaiveProxy (`naive+https://user:pass@host:port`): HTTP/2 CONNECT through Chromium's network stack. */
export interface NaiveEndpoint extends EndpointBase {
  protocol: 'naive';
  username?: string;
  password?: string;
  /** `naive+quic://`: HTTP/3 instead of HTTP/2. */
  quic?: boolean;
}

export interface WireguardEndpoint extends EndpointBase {
  protocol: 'wireguard';
  privateKey: string;
  /** The peer's public key. */
  publicKey: string;
  preSharedKey?: string;
  /** Local tunnel addresses (CIDR). */
  localAddresses: string[];
  reserved?: number[];
  mtu?: number;
}

export interface SocksEndpoint extends EndpointBase {
  protocol: 'socks';
  username?: string;
  password?: string;
}

export interface HttpEndpoint extends EndpointBase {
  protocol: 'http';
  username?: string;
  password?: string;
}

export type Endpoint =
  | VmessEndpoint
  | VlessEndpoint
  | TrojanEndpoint
  | ShadowsocksEndpoint
  | Hysteria2Endpoint
  | TuicEndpoint
  | WireguardEndpoint
  | SocksEndpoint
  | HttpEndpoint
  | HysteriaEndpoint
  | AnytlsEndpoint
  | NaiveEndpoint;

/** What a subscription entry parses to, before the app gives it an identity. */
export type ParsedServer = Endpoint & {
  name: string;
  /**
   * The name of another entry of the same subscription this one dials through (a chain or
   * "detour"), as the source format names it; resolved to `via` once ids exist.
   */
  viaName?: string;
  /**
   * Whether the server carries IPv6 traffic, as its subscription declares it (`ipv6=1` /
   * `ipv6=0` on a share link, or a sing-box config's `experimental.monitoring.ipv6_declared`).
   * Absent when the subscription says nothing; the monitor may then verify it (verify_ipv6).
   */
  ipv6?: boolean;
};

export type ServerId = string;
export type SubscriptionId = string;

/** A server with its stable identity (see app/subscriptions/identity.ts for the matching rule). */
export type Server = ParsedServer & {
  id: ServerId;
  subscriptionId: SubscriptionId;
  /** Id of the server this one dials through, when it is chained. */
  via?: ServerId;
};

/** The credential that, with protocol + address + port, identifies a server across updates. */
export function credentialOf(endpoint: Endpoint): string {
  switch (endpoint.protocol) {
    case 'vmess':
    case 'vless':
      return endpoint.uuid;
    case 'tuic':
      return `${endpoint.uuid}:${endpoint.password}`;
    case 'trojan':
    case 'hysteria2':
    case 'anytls':
      return endpoint.password;
    case 'hysteria':
      return endpoint.auth ?? '';
    case 'shadowsocks':
      return `${endpoint.method}:${endpoint.password}`;
    case 'wireguard':
      return endpoint.publicKey;
    case 'socks':
    case 'http':
    case 'naive':
      return `${endpoint.username ?? ''}:${endpoint.password ?? ''}`;
  }
}

/**
 * Whether a server is reached over UDP (the QUIC-based protocols, WireGuard, NaiveProxy over
 * QUIC) rather than TCP: which anti-DPI option can reach it depends on it (a ClientHello split
 * over TCP, noise before UDP).
 */
export function reachedOverUdp(server: { protocol: Protocol; quic?: boolean }): boolean {
  switch (server.protocol) {
    case 'tuic':
    case 'hysteria':
    case 'hysteria2':
    case 'wireguard':
      return true;
    case 'naive':
      return !!server.quic;
    default:
      return false;
  }
}

/** host:port as a dialer writes it (IPv6 in brackets). */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
