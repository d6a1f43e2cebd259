/**
 * Server configs of the real cores hosting the modern block: one Xray process for the kinds Xray
 * hosts (REALITY + Vision, xhttp, gRPC, httpupgrade, WireGuard, Shadowsocks 2022) and one sing-box
 * process for the rest (Hysteria2 with salamander, TUIC v5, ShadowTLS v3, AnyTLS, Hysteria v1). Each inbound leaves
 * through its own exit address (Xray `sendThrough`, sing-box `inet4_bind_address`) and resolves the
 * lab's names with the lab's resolver only. Pure: the ports, certificate files and addresses come in.
 */
import { LAB_ZONE } from './v2ray-server';
import {
  HYSTERIA_V1_MBPS,
  REALITY_SERVER_NAME,
  SHADOWTLS_INNER_METHOD,
  SS2022_METHOD,
  WIREGUARD_CLIENT_ADDRESS,
  type ModernServerSpec,
} from './modern-world';

type Json = Record<string, unknown>;

export interface ServerFiles {
  certificateFile: string;
  keyFile: string;
}

const inTag = (s: ModernServerSpec) => `in-${s.id}`;
const outTag = (s: ModernServerSpec) => `out-${s.id}`;

function xrayInbound(s: ModernServerSpec, port: number, files: ServerFiles, tlsSite: string): Json {
  const base = { tag: inTag(s), listen: '127.0.0.1', port };
  const tls = { security: 'tls', tlsSettings: { certificates: [files] } };
  switch (s.kind) {
    case 'vless-reality-vision':
      return {
        ...base,
        protocol: 'vless',
        settings: { clients: [{ id: s.uuid, flow: 'xtls-rprx-vision' }], decryption: 'none' },
        streamSettings: {
          network: 'raw',
          security: 'reality',
          realitySettings: { target: tlsSite, serverNames: [REALITY_SERVER_NAME], privateKey: s.reality.privateKey, shortIds: [s.reality.shortId] },
        },
      };
    case 'vless-xhttp':
      return { ...base, protocol: 'vless', settings: { clients: [{ id: s.uuid }], decryption: 'none' }, streamSettings: { network: 'xhttp', xhttpSettings: { path: s.path, mode: 'auto' } } };
    case 'vless-grpc-tls':
      return { ...base, protocol: 'vless', settings: { clients: [{ id: s.uuid }], decryption: 'none' }, streamSettings: { network: 'grpc', grpcSettings: { serviceName: s.serviceName }, ...tls } };
    case 'vmess-httpupgrade':
      return { ...base, protocol: 'vmess', settings: { clients: [{ id: s.uuid }] }, streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: s.path } } };
    case 'vless-httpupgrade':
      return { ...base, protocol: 'vless', settings: { clients: [{ id: s.uuid }], decryption: 'none' }, streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: s.path } } };
    case 'trojan-grpc-tls':
      return { ...base, protocol: 'trojan', settings: { clients: [{ password: s.password }] }, streamSettings: { network: 'grpc', grpcSettings: { serviceName: s.serviceName }, ...tls } };
    case 'wireguard':
      return {
        ...base,
        protocol: 'wireguard',
        settings: { secretKey: s.wireguard.server.privateKey, peers: [{ publicKey: s.wireguard.client.publicKey, allowedIPs: [WIREGUARD_CLIENT_ADDRESS] }] },
      };
    case 'shadowsocks-2022':
      return { ...base, protocol: 'shadowsocks', settings: { method: SS2022_METHOD, password: s.ss2022Key, network: 'tcp,udp' } };
    default:
      throw new Error(`${s.kind} is not hosted by Xray`);
  }
}

/** `resolver` is "127.0.0.1:PORT" (the lab's DNS); `tlsSite` the lab's TLS site REALITY borrows. */
export function xrayServerConfig(servers: ModernServerSpec[], ports: number[], files: ServerFiles, tlsSite: string, resolver: string): Json {
  const [resolverHost, resolverPort] = resolver.split(':');
  return {
    log: { loglevel: 'warning', access: 'none' },
    dns: { tag: 'lab-dns', servers: [{ address: resolverHost, port: Number(resolverPort) }] },
    inbounds: servers.map((s, i) => xrayInbound(s, ports[i] as number, files, tlsSite)),
    outbounds: [
      { tag: 'unrouted', protocol: 'blackhole' },
      ...servers.map((s) => ({ tag: outTag(s), protocol: 'freedom', sendThrough: s.exitIp, ...(s.kind === 'wireguard' ? { settings: { redirect: `127.0.0.1:0` } } : {}) })),
      ...servers.map((s) => ({ tag: `named-${s.id}`, protocol: 'freedom', sendThrough: s.exitIp, settings: { domainStrategy: 'UseIPv4' } })),
      { tag: 'lab-dns-out', protocol: 'freedom' },
    ],
    routing: {
      rules: [
        { type: 'field', inboundTag: ['lab-dns'], outboundTag: 'lab-dns-out' },
        ...servers.flatMap((s) => [
          { type: 'field', inboundTag: [inTag(s)], domain: [`domain:${LAB_ZONE}`], outboundTag: `named-${s.id}` },
          { type: 'field', inboundTag: [inTag(s)], outboundTag: outTag(s) },
        ]),
      ],
    },
  };
}

/** Ports a sing-box-hosted server needs: ShadowTLS also runs its inner Shadowsocks inbound. */
export function singBoxPortsNeeded(s: ModernServerSpec): number {
  return s.kind === 'shadowtls-v3' ? 2 : 1;
}

function singBoxInbounds(s: ModernServerSpec, ports: number[], files: ServerFiles, tlsSitePort: number): Json[] {
  const tls = { enabled: true, certificate_path: files.certificateFile, key_path: files.keyFile, alpn: ['h3'] };
  const base = { tag: inTag(s), listen: '127.0.0.1', listen_port: ports[0] };
  switch (s.kind) {
    case 'hysteria2-salamander-hopping':
      // The hopping range is the relay's (as nftables DNAT would be on a real server): one port here.
      return [{ ...base, type: 'hysteria2', users: [{ password: s.password }], obfs: { type: 'salamander', password: s.obfsPassword }, tls }];
    case 'tuic-v5':
      return [{ ...base, type: 'tuic', users: [{ uuid: s.uuid, password: s.password }], congestion_control: 'bbr', tls }];
    case 'anytls':
      return [{ ...base, type: 'anytls', users: [{ name: s.id, password: s.password }], tls: { ...tls, alpn: ['h2', 'http/1.1'] } }];
    case 'hysteria-v1':
      return [
        {
          ...base,
          type: 'hysteria',
          up_mbps: HYSTERIA_V1_MBPS,
          down_mbps: HYSTERIA_V1_MBPS,
          obfs: s.obfsPassword,
          users: [{ name: s.id, auth_str: s.password }],
          tls: { ...tls, alpn: ['hysteria'] },
        },
      ];
    case 'shadowtls-v3':
      return [
        { ...base, type: 'shadowtls', version: 3, users: [{ password: s.shadowTlsPassword }], handshake: { server: '127.0.0.1', server_port: tlsSitePort }, strict_mode: true, detour: `inner-${s.id}` },
        { type: 'shadowsocks', tag: `inner-${s.id}`, listen: '127.0.0.1', listen_port: ports[1], method: SHADOWTLS_INNER_METHOD, password: s.password },
      ];
    default:
      throw new Error(`${s.kind} is not hosted by sing-box`);
  }
}

/** `ports[i]` lists server i's ports (singBoxPortsNeeded of them). */
export function singBoxServerConfig(servers: ModernServerSpec[], ports: number[][], files: ServerFiles, tlsSitePort: number, resolver: string): Json {
  const [resolverHost, resolverPort] = resolver.split(':');
  return {
    log: { level: 'info', timestamp: false },
    dns: { servers: [{ type: 'udp', tag: 'lab-dns', server: resolverHost, server_port: Number(resolverPort) }] },
    inbounds: servers.flatMap((s, i) => singBoxInbounds(s, ports[i] as number[], files, tlsSitePort)),
    outbounds: [
      ...servers.map((s) => ({ type: 'direct', tag: outTag(s), inet4_bind_address: s.exitIp, domain_resolver: { server: 'lab-dns', strategy: 'ipv4_only' } })),
    ],
    route: {
      default_domain_resolver: 'lab-dns',
      rules: [
        ...servers.map((s) => ({ inbound: s.kind === 'shadowtls-v3' ? [inTag(s), `inner-${s.id}`] : [inTag(s)], outbound: outTag(s) })),
        // Nothing else should arrive; what does goes nowhere.
        { action: 'reject' },
      ],
    },
  };
}
