/**
 * One v2ray process hosting every server inbound. Each inbound routes to its own freedom outbound
 * that leaves from the server's exit address (`sendThrough`), so every server has its own exit IP.
 * An IPv6-capable server (`ipv6`) routes IPv6 destinations to a second freedom outbound leaving
 * from ::1; the others cannot dial IPv6 at all (an IPv4 sendThrough has no IPv6 source), so they
 * refuse it. Started supervised: even a SIGKILLed lab leaves no v2ray behind.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnSupervised } from '../../app/process/supervised';
import { freePorts } from '../../app/tunnel/ports';
import { startCore, V2RAY_STARTED } from './core-process';
import { TLS_SERVER_NAME, WS_HOST, type ServerSpec } from './world';

const execFileAsync = promisify(execFile);

export interface TlsFiles {
  certificateFile: string;
  keyFile: string;
}

/** A certificate's pin as share links carry it (`pcs`): the SHA-256 of its DER, lower-case hex. */
export function certificatePinOf(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
}

export function inboundTag(server: ServerSpec): string {
  return `in-${server.id}`;
}

function streamSettings(server: ServerSpec, tls: TlsFiles | null): Record<string, unknown> | undefined {
  if (server.network === 'tcp' && server.security === 'none') return undefined;
  const settings: Record<string, unknown> = { network: server.network, security: server.security };
  if (server.network === 'ws') settings.wsSettings = { path: server.wsPath, headers: { Host: WS_HOST } };
  if (server.security === 'tls') {
    if (!tls) throw new Error(`server ${server.id} needs TLS but no certificate was made`);
    settings.tlsSettings = { serverName: TLS_SERVER_NAME, certificates: [tls] };
  }
  return settings;
}

function inboundSettings(server: ServerSpec): Record<string, unknown> {
  switch (server.protocol) {
    case 'vmess':
      return { clients: [{ id: server.uuid, alterId: 0 }] };
    case 'vless':
      return { clients: [{ id: server.uuid }], decryption: 'none' };
    case 'trojan':
      return { clients: [{ password: server.password }] };
    case 'shadowsocks':
      return { method: server.ssMethod, password: server.password, network: 'tcp' };
  }
}

/** The lab's own names: a server resolves them with the lab's resolver (never the machine's). */
export const LAB_ZONE = 'lab.test';
const LAB_DNS_TAG = 'lab-dns';

/**
 * `resolver` ("127.0.0.1:PORT") answers the lab's names. A name under LAB_ZONE leaves a server
 * through a second freedom outbound (same exit address) that resolves it with the server's DNS
 * module, which asks only that resolver; every other destination is dialled as it always was.
 */
export function serverConfig(servers: ServerSpec[], ports: number[], tls: TlsFiles | null, resolver?: string): Record<string, unknown> {
  const [resolverHost, resolverPort] = (resolver ?? '').split(':');
  const named = resolver !== undefined;
  return {
    log: { loglevel: 'warning', access: 'none' },
    ...(named ? { dns: { tag: LAB_DNS_TAG, servers: [{ address: resolverHost, port: Number(resolverPort) }] } } : {}),
    inbounds: servers.map((s, i) => ({
      tag: inboundTag(s),
      listen: '127.0.0.1',
      port: ports[i],
      protocol: s.protocol,
      settings: inboundSettings(s),
      streamSettings: streamSettings(s, tls),
    })),
    outbounds: [
      // The first outbound is v2ray's default; nothing should reach it, so it goes nowhere.
      { tag: 'unrouted', protocol: 'blackhole' },
      ...servers.map((s) => ({ tag: `out-${s.id}`, protocol: 'freedom', sendThrough: s.exitIp })),
      ...servers.filter((s) => s.ipv6).map((s) => ({ tag: `out6-${s.id}`, protocol: 'freedom', sendThrough: '::1' })),
      ...(named
        ? [
            ...servers.map((s) => ({ tag: `named-${s.id}`, protocol: 'freedom', sendThrough: s.exitIp, settings: { domainStrategy: 'UseIPv4' } })),
            { tag: 'lab-dns-out', protocol: 'freedom' },
          ]
        : []),
    ],
    routing: {
      rules: [
        ...(named ? [{ type: 'field', inboundTag: [LAB_DNS_TAG], outboundTag: 'lab-dns-out' }] : []),
        ...servers.flatMap((s) => [
          // First match wins: an IPv6 destination of an IPv6-capable server takes its IPv6 exit.
          ...(s.ipv6 ? [{ type: 'field', inboundTag: [inboundTag(s)], ip: ['::/0'], outboundTag: `out6-${s.id}` }] : []),
          ...(named ? [{ type: 'field', inboundTag: [inboundTag(s)], domain: [`domain:${LAB_ZONE}`], outboundTag: `named-${s.id}` }] : []),
          { type: 'field', inboundTag: [inboundTag(s)], outboundTag: `out-${s.id}` },
        ]),
      ],
    },
  };
}

/**
 * A throwaway self-signed certificate for the TLS servers. Links carry its pin (`pcs`, what Xray
 * 26 verifies) and `allowInsecure=1` (what a core that cannot pin, v2ray 4.34, needs).
 */
export async function makeCertificate(dir: string): Promise<TlsFiles & { pin: string }> {
  const certificateFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  await execFileAsync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certificateFile, '-days', '30',
    '-subj', `/CN=${TLS_SERVER_NAME}`, '-addext', `subjectAltName=DNS:${TLS_SERVER_NAME},DNS:${WS_HOST}`,
  ]);
  return { certificateFile, keyFile, pin: certificatePinOf(await readFile(certificateFile, 'utf8')) };
}


export interface RunningServers {
  /** Inbound port of each server, in the order given. */
  ports: number[];
  /** The TLS servers' certificate as a pin (SHA-256 of its DER, lower-case hex), or null without TLS servers. */
  certificatePin: string | null;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the v2ray that hosts `servers`; resolves when every inbound accepts connections.
 * A port taken between choosing and binding makes v2ray fail: we then choose again.
 */
export async function startServers(servers: ServerSpec[], v2rayPath: string, resolver?: string, attempts = 3): Promise<RunningServers> {
  const dir = await mkdtemp(join(tmpdir(), 'steadfast-lab-'));
  try {
    const tls = servers.some((s) => s.security === 'tls') ? await makeCertificate(dir) : null;
    const configFile = join(dir, 'servers.json');
    const running = await startCore(
      'v2ray',
      async () => {
        const ports = await freePorts(servers.length);
        await writeFile(configFile, JSON.stringify(serverConfig(servers, ports, tls, resolver)), { mode: 0o600 });
        // v2ray says "started" once every inbound listens; the first and last accepting confirm it.
        const tcp = [ports[0], ports[ports.length - 1]].filter((port): port is number => port !== undefined);
        return { ports, tcp, child: spawnSupervised(v2rayPath, ['-config', configFile]), ready: V2RAY_STARTED };
      },
      attempts,
    );
    // v2ray has read its config and certificate: remove them now, so even a SIGKILLed lab leaves
    // no credentials behind in /tmp.
    await rm(dir, { recursive: true, force: true });
    return { ports: running.ports, certificatePin: tls?.pin ?? null, pid: running.pid, stop: running.stop };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
