/**
 * The lab's own client for the modern block, independent of the product's config generators (as
 * client.ts is for the v2ray world): one local HTTP proxy per server, through an Xray client for
 * every kind Xray speaks and a sing-box client for TUIC, ShadowTLS, AnyTLS and Hysteria v1. The selftest measures the
 * modern servers through it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSupervised } from '../../app/process/supervised';
import { freePorts } from '../../app/tunnel/ports';
import { type RunningCore, SING_BOX_STARTED, XRAY_STARTED, startCore } from './core-process';
import type { ModernDial } from './modern-links';
import {
  HYSTERIA_V1_MBPS,
  REALITY_SERVER_NAME,
  SHADOWTLS_INNER_METHOD,
  SHADOWTLS_SERVER_NAME,
  SS2022_METHOD,
  WIREGUARD_CLIENT_ADDRESS,
  type ModernServerSpec,
} from './modern-world';
import { TLS_SERVER_NAME } from './world';

type Json = Record<string, unknown>;

/** How often the lab's Hysteria2 client moves to another port of the range (Hysteria's minimum). */
export const HOP_INTERVAL_S = 5;

export interface ModernRoute {
  spec: ModernServerSpec;
  dial: ModernDial;
}

const SING_BOX_CLIENT_KINDS = new Set<ModernServerSpec['kind']>(['tuic-v5', 'shadowtls-v3', 'anytls', 'hysteria-v1']);

/** Which client core the lab uses for a kind: Xray where it speaks it, sing-box for the rest. */
export function clientCoreFor(spec: ModernServerSpec): 'xray' | 'sing-box' {
  return SING_BOX_CLIENT_KINDS.has(spec.kind) ? 'sing-box' : 'xray';
}

function xrayOutbound({ spec: s, dial }: ModernRoute, pin: string): Json {
  const tag = s.id;
  const address = dial.host;
  const port = dial.port;
  const pinnedTls = { security: 'tls', tlsSettings: { serverName: TLS_SERVER_NAME, alpn: ['h2'], pinnedPeerCertSha256: pin } };
  switch (s.kind) {
    case 'vless-reality-vision':
      return {
        tag,
        protocol: 'vless',
        settings: { vnext: [{ address, port, users: [{ id: s.uuid, encryption: 'none', flow: 'xtls-rprx-vision' }] }] },
        streamSettings: { network: 'raw', security: 'reality', realitySettings: { serverName: REALITY_SERVER_NAME, fingerprint: 'chrome', publicKey: s.reality.publicKey, shortId: s.reality.shortId } },
      };
    case 'vless-xhttp':
      return { tag, protocol: 'vless', settings: { vnext: [{ address, port, users: [{ id: s.uuid, encryption: 'none' }] }] }, streamSettings: { network: 'xhttp', xhttpSettings: { path: s.path, mode: 'auto' } } };
    case 'vless-grpc-tls':
      return { tag, protocol: 'vless', settings: { vnext: [{ address, port, users: [{ id: s.uuid, encryption: 'none' }] }] }, streamSettings: { network: 'grpc', grpcSettings: { serviceName: s.serviceName }, ...pinnedTls } };
    case 'vmess-httpupgrade':
      return { tag, protocol: 'vmess', settings: { vnext: [{ address, port, users: [{ id: s.uuid, security: 'auto' }] }] }, streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: s.path } } };
    case 'vless-httpupgrade':
      return { tag, protocol: 'vless', settings: { vnext: [{ address, port, users: [{ id: s.uuid, encryption: 'none' }] }] }, streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: s.path } } };
    case 'trojan-grpc-tls':
      return { tag, protocol: 'trojan', settings: { servers: [{ address, port, password: s.password }] }, streamSettings: { network: 'grpc', grpcSettings: { serviceName: s.serviceName }, ...pinnedTls } };
    case 'hysteria2-salamander-hopping': {
      const ports = dial.ports && dial.ports.length > 1 ? `${dial.ports[0]}-${dial.ports[dial.ports.length - 1]}` : String(port);
      return {
        tag,
        protocol: 'hysteria',
        settings: { version: 2, address, port },
        streamSettings: {
          network: 'hysteria',
          security: 'tls',
          tlsSettings: { serverName: TLS_SERVER_NAME, alpn: ['h3'], pinnedPeerCertSha256: pin },
          hysteriaSettings: { version: 2, auth: s.password },
          // Since Xray 26.3.23 the hopping range lives in finalmask.quicParams: the old
          // hysteriaSettings.udphop is still accepted, with a warning, and no longer hops.
          finalmask: { udp: [{ type: 'salamander', settings: { password: s.obfsPassword } }], quicParams: { udpHop: { ports, interval: HOP_INTERVAL_S } } },
        },
      };
    }
    case 'wireguard':
      return {
        tag,
        protocol: 'wireguard',
        // The userspace stack: as root Xray would otherwise make a kernel TUN device, whose routes send
        // a loopback destination past the tunnel.
        settings: { secretKey: s.wireguard.client.privateKey, address: [WIREGUARD_CLIENT_ADDRESS], peers: [{ publicKey: s.wireguard.server.publicKey, endpoint: `${address}:${port}` }], mtu: 1420, noKernelTun: true },
      };
    case 'shadowsocks-2022':
      return { tag, protocol: 'shadowsocks', settings: { servers: [{ address, port, method: SS2022_METHOD, password: s.ss2022Key }] } };
    default:
      throw new Error(`the lab's Xray client does not speak ${s.kind}`);
  }
}

export function xrayClientConfig(routes: ModernRoute[], ports: number[], pin: string): Json {
  return {
    log: { loglevel: 'warning', access: 'none' },
    inbounds: routes.map((r, i) => ({ tag: `http-${r.spec.id}`, listen: '127.0.0.1', port: ports[i], protocol: 'http', settings: {} })),
    outbounds: [{ tag: 'unrouted', protocol: 'blackhole' }, ...routes.map((r) => xrayOutbound(r, pin))],
    routing: { rules: routes.map((r) => ({ type: 'field', inboundTag: [`http-${r.spec.id}`], outboundTag: r.spec.id })) },
  };
}

function singBoxOutbounds({ spec: s, dial }: ModernRoute): Json[] {
  const server = { server: dial.host, server_port: dial.port };
  switch (s.kind) {
    case 'tuic-v5':
      return [
        {
          type: 'tuic',
          tag: s.id,
          ...server,
          uuid: s.uuid,
          password: s.password,
          congestion_control: 'bbr',
          udp_relay_mode: 'native',
          tls: { enabled: true, server_name: TLS_SERVER_NAME, insecure: true, alpn: ['h3'] },
        },
      ];
    case 'anytls':
      return [{ type: 'anytls', tag: s.id, ...server, password: s.password, tls: { enabled: true, server_name: TLS_SERVER_NAME, insecure: true } }];
    case 'hysteria-v1':
      return [
        {
          type: 'hysteria',
          tag: s.id,
          ...server,
          up_mbps: HYSTERIA_V1_MBPS,
          down_mbps: HYSTERIA_V1_MBPS,
          obfs: s.obfsPassword,
          auth_str: s.password,
          tls: { enabled: true, server_name: TLS_SERVER_NAME, insecure: true, alpn: ['hysteria'] },
        },
      ];
    case 'shadowtls-v3':
      return [
        { type: 'shadowsocks', tag: s.id, method: SHADOWTLS_INNER_METHOD, password: s.password, detour: `stls-${s.id}` },
        // The handshake is the lab's TLS site's, whose certificate is self-signed; ShadowTLS
        // authenticates the server by its password, not by that certificate.
        { type: 'shadowtls', tag: `stls-${s.id}`, ...server, version: 3, password: s.shadowTlsPassword, tls: { enabled: true, server_name: SHADOWTLS_SERVER_NAME, insecure: true } },
      ];
    default:
      throw new Error(`the lab's sing-box client is not written for ${s.kind}`);
  }
}

export function singBoxClientConfig(routes: ModernRoute[], ports: number[]): Json {
  return {
    log: { level: 'info', timestamp: false },
    inbounds: routes.map((r, i) => ({ type: 'http', tag: `http-${r.spec.id}`, listen: '127.0.0.1', listen_port: ports[i] })),
    outbounds: routes.flatMap(singBoxOutbounds),
    route: { rules: [...routes.map((r) => ({ inbound: [`http-${r.spec.id}`], outbound: r.spec.id })), { action: 'reject' }] },
  };
}

export interface ModernClient {
  /** Local HTTP proxy port per server id. */
  proxies: Record<string, number>;
  stop(): Promise<void>;
}

/** `cores` gives each client core's path (the lab's own Xray and sing-box). */
export async function startModernClient(routes: ModernRoute[], pin: string, cores: { xray: string | null; 'sing-box': string | null }): Promise<ModernClient> {
  const dir = await mkdtemp(join(tmpdir(), 'steadfast-lab-modern-client-'));
  const running: RunningCore[] = [];
  const proxies: Record<string, number> = {};
  try {
    for (const core of ['xray', 'sing-box'] as const) {
      const mine = routes.filter((r) => clientCoreFor(r.spec) === core);
      const path = cores[core];
      if (mine.length === 0) continue;
      if (!path) throw new Error(`the lab's ${core} client is needed for ${mine.map((r) => r.spec.id).join(', ')} and ${core} is not on this machine`);
      const started = await startCore(`${core} client`, async () => {
        const ports = await freePorts(mine.length);
        const file = join(dir, `${core}-client.json`);
        const config = core === 'xray' ? xrayClientConfig(mine, ports, pin) : singBoxClientConfig(mine, ports);
        await writeFile(file, JSON.stringify(config), { mode: 0o600 });
        const args = core === 'xray' ? ['run', '-c', file] : ['run', '-c', file, '--disable-color'];
        return { ports, tcp: ports, child: spawnSupervised(path, args), ready: core === 'xray' ? XRAY_STARTED : SING_BOX_STARTED };
      });
      running.push(started);
      mine.forEach((r, i) => (proxies[r.spec.id] = started.ports[i] as number));
    }
  } catch (error) {
    await Promise.all(running.map((r) => r.stop()));
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { proxies, stop: async () => void (await Promise.all(running.map((r) => r.stop()))) };
}
