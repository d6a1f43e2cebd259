import type { ServerSpec } from './servers';

/**
 * The same servers as entries of the config formats providers serve: Xray outbounds, sing-box
 * outbounds and Clash proxies. Only valid shapes here; the body generators perturb them.
 */
type Json = Record<string, unknown>;

/** The Xray protocol a spec is written as (Xray has no hysteria2 / tuic outbound in our parser). */
export function xrayProtocolOf(s: ServerSpec): string {
  switch (s.scheme) {
    case 'ss':
      return 'shadowsocks';
    case 'hysteria2':
    case 'tuic':
      return 'vless';
    default:
      return s.scheme;
  }
}

function xrayStream(s: ServerSpec): Json {
  const network = s.network === 'xhttp' ? 'xhttp' : s.network;
  const stream: Json = { network, security: s.security };
  if (network === 'ws') stream.wsSettings = { path: s.path, headers: { Host: s.hostHeader } };
  if (network === 'grpc') stream.grpcSettings = { serviceName: s.path, multiMode: s.variant % 2 === 1 };
  if (network === 'h2') stream.httpSettings = { path: s.path, host: s.hostHeader ? [s.hostHeader] : [] };
  if (network === 'httpupgrade') stream.httpupgradeSettings = { path: s.path, host: s.hostHeader };
  if (network === 'xhttp') stream.xhttpSettings = { path: s.path, mode: 'auto' };
  if (network === 'kcp') stream.kcpSettings = { header: { type: 'wechat-video' }, seed: 'seed' };
  if (s.security === 'tls') stream.tlsSettings = { serverName: s.sni, alpn: s.alpn, fingerprint: 'chrome', allowInsecure: false };
  if (s.security === 'reality') stream.realitySettings = { serverName: s.sni, publicKey: s.key32a, shortId: '6ba85179', fingerprint: 'chrome' };
  return stream;
}

export function xrayOutbound(s: ServerSpec, via?: string): Json {
  const protocol = xrayProtocolOf(s);
  const out: Json = { tag: s.tag, protocol };
  switch (protocol) {
    case 'vmess':
    case 'vless':
      out.settings = {
        vnext: [
          {
            address: s.host,
            port: s.variant % 2 ? String(s.port) : s.port,
            users: [protocol === 'vmess' ? { id: s.uuid, alterId: 0, security: 'auto' } : { id: s.uuid, encryption: 'none', flow: s.variant > 3 ? 'xtls-rprx-vision' : '' }],
          },
        ],
      };
      out.streamSettings = xrayStream(s);
      break;
    case 'trojan':
      out.settings = { servers: [{ address: s.host, port: s.port, password: s.password }] };
      out.streamSettings = xrayStream({ ...s, security: s.security === 'none' ? 'tls' : s.security });
      break;
    case 'shadowsocks':
      out.settings = { servers: [{ address: s.host, port: s.port, method: 'aes-256-gcm', password: s.password }] };
      break;
    case 'socks':
    case 'http':
      out.settings = { servers: [{ address: s.host, port: s.port, users: [{ user: 'user', pass: s.password }] }] };
      break;
    case 'wireguard':
      out.settings = { secretKey: s.key32a, address: ['10.7.0.2/32'], peers: [{ publicKey: s.key32b, endpoint: `${s.urlHost}:${s.port}` }], mtu: 1280 };
      break;
  }
  if (via) out.proxySettings = { tag: via };
  return out;
}

export function xrayConfig(servers: ServerSpec[], remarks: string, vias: (string | undefined)[] = []): Json {
  return {
    remarks,
    log: { loglevel: 'warning' },
    inbounds: [{ port: 10808, listen: '127.0.0.1', protocol: 'socks', settings: { udp: true } }],
    outbounds: [...servers.map((s, i) => xrayOutbound(s, vias[i])), { tag: 'direct', protocol: 'freedom' }, { tag: 'block', protocol: 'blackhole' }],
    routing: { rules: [{ type: 'field', ip: ['geoip:private'], outboundTag: 'direct' }] },
  };
}

function singBoxTls(s: ServerSpec, always: boolean): Json | undefined {
  if (s.security === 'none' && !always) return undefined;
  const tls: Json = { enabled: true, server_name: s.sni, alpn: s.alpn, insecure: s.variant === 5 };
  if (s.security === 'reality') tls.reality = { enabled: true, public_key: s.key32a, short_id: '6ba85179' };
  if (s.variant % 2) tls.utls = { enabled: true, fingerprint: 'chrome' };
  return tls;
}

function singBoxTransport(s: ServerSpec): Json | undefined {
  switch (s.network) {
    case 'ws':
      return { type: 'ws', path: s.path, headers: { Host: s.hostHeader } };
    case 'grpc':
      return { type: 'grpc', service_name: s.path };
    case 'httpupgrade':
      return { type: 'httpupgrade', path: s.path, host: s.hostHeader };
    case 'h2':
      return { type: 'http', path: s.path, host: s.hostHeader ? [s.hostHeader] : [] };
    case 'quic':
      return { type: 'quic' };
    default:
      return undefined;
  }
}

export function singBoxOutbound(s: ServerSpec, detour?: string): Json {
  const server = { tag: s.tag, server: s.host, server_port: s.port, ...(detour ? { detour } : {}) };
  switch (s.scheme) {
    case 'vmess':
      return { type: 'vmess', ...server, uuid: s.uuid, alter_id: 0, security: 'auto', tls: singBoxTls(s, false), transport: singBoxTransport(s) };
    case 'vless':
      return { type: 'vless', ...server, uuid: s.uuid, flow: s.variant > 3 ? 'xtls-rprx-vision' : '', tls: singBoxTls(s, false), transport: singBoxTransport(s) };
    case 'trojan':
      return { type: 'trojan', ...server, password: s.password, tls: singBoxTls(s, true), transport: singBoxTransport(s) };
    case 'ss':
      return { type: 'shadowsocks', ...server, method: 'chacha20-ietf-poly1305', password: s.password };
    case 'hysteria2':
      return { type: 'hysteria2', ...server, password: s.password, up_mbps: 100, down_mbps: 500, tls: singBoxTls(s, true), ...(s.variant > 3 ? { obfs: { type: 'salamander', password: s.password } } : {}) };
    case 'tuic':
      return { type: 'tuic', ...server, uuid: s.uuid, password: s.password, congestion_control: 'bbr', tls: singBoxTls(s, true) };
    case 'wireguard':
      return s.variant % 2
        ? { type: 'wireguard', tag: s.tag, address: ['10.7.0.2/32'], private_key: s.key32a, peers: [{ address: s.host, port: s.port, public_key: s.key32b, allowed_ips: ['0.0.0.0/0'] }] }
        : { type: 'wireguard', ...server, local_address: ['10.7.0.2/32'], private_key: s.key32a, peer_public_key: s.key32b, mtu: 1408 };
    case 'socks':
      return { type: 'socks', ...server, version: '5', username: 'user', password: s.password };
    case 'http':
      return { type: 'http', ...server, username: 'user', password: s.password };
  }
}

export function singBoxConfig(servers: ServerSpec[], detours: (string | undefined)[] = []): Json {
  const outbounds = servers.map((s, i) => singBoxOutbound(s, detours[i]));
  const wireguardEndpoints = outbounds.filter((o) => o.type === 'wireguard' && 'peers' in o);
  return {
    log: { level: 'warn' },
    inbounds: [{ type: 'mixed', listen: '127.0.0.1', listen_port: 2080 }],
    outbounds: [
      { type: 'selector', tag: 'select', outbounds: servers.map((s) => s.tag) },
      ...outbounds.filter((o) => !wireguardEndpoints.includes(o)),
      { type: 'direct', tag: 'direct' },
    ],
    ...(wireguardEndpoints.length > 0 ? { endpoints: wireguardEndpoints } : {}),
  };
}

export function clashProxy(s: ServerSpec, dialer?: string): Json {
  const base: Json = { name: s.name || s.tag, server: s.host, port: s.variant % 2 ? String(s.port) : s.port, ...(dialer ? { 'dialer-proxy': dialer } : {}) };
  const stream: Json = {
    tls: s.security !== 'none',
    ...(s.sni ? { servername: s.sni } : {}),
    ...(s.security === 'reality' ? { 'reality-opts': { 'public-key': s.key32a, 'short-id': '6ba85179' } } : {}),
    network: s.network === 'ws' || s.network === 'grpc' || s.network === 'h2' ? s.network : 'tcp',
    ...(s.network === 'ws' ? { 'ws-opts': { path: s.path, headers: { Host: s.hostHeader } } } : {}),
    ...(s.network === 'grpc' ? { 'grpc-opts': { 'grpc-service-name': s.path } } : {}),
    ...(s.network === 'h2' ? { 'h2-opts': { path: s.path, host: [s.hostHeader] } } : {}),
  };
  switch (s.scheme) {
    case 'vmess':
      return { ...base, type: 'vmess', uuid: s.uuid, alterId: 0, cipher: 'auto', ...stream };
    case 'vless':
      return { ...base, type: 'vless', uuid: s.uuid, ...stream };
    case 'trojan':
      return { ...base, type: 'trojan', password: s.password, sni: s.sni, ...(s.network === 'ws' ? { network: 'ws', 'ws-opts': stream['ws-opts'] } : {}) };
    case 'ss':
      return { ...base, type: 'ss', cipher: 'aes-128-gcm', password: s.password, ...(s.variant > 3 ? { plugin: 'obfs', 'plugin-opts': { mode: 'tls', host: 'bing.com' } } : {}) };
    case 'hysteria2':
      return { ...base, type: 'hysteria2', password: s.password, sni: s.sni, up: '30 Mbps', down: '200 Mbps', ...(s.variant > 3 ? { obfs: 'salamander', 'obfs-password': s.password } : {}) };
    case 'tuic':
      return { ...base, type: 'tuic', uuid: s.uuid, password: s.password, 'congestion-controller': 'bbr', 'udp-relay-mode': 'native', alpn: ['h3'] };
    case 'wireguard':
      return { ...base, type: 'wireguard', ip: '172.16.0.2', ipv6: 'fd01::2', 'private-key': s.key32a, 'public-key': s.key32b, udp: true, mtu: 1280 };
    case 'socks':
      return { ...base, type: 'socks5', username: 'user', password: s.password };
    case 'http':
      return { ...base, type: 'http', username: 'user', password: s.password, tls: s.variant % 2 === 1 };
  }
}
