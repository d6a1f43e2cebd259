/**
 * Every lab protocol × every client core on this machine, as a user meets it: the lab's share
 * link, read by the app's parser, is either refused by `unsupportedReason` (the reason is the
 * cell) or connected through the app's real TunnelController, where the exit IP seen by the lab's
 * IP-info stand-in must be that server's and a 1 MB download of fresh random bytes must arrive
 * byte-exact (its SHA-256 against what the target served). The whole table is then held against
 * the expected one below, so a cell that stops (or starts) working fails the test; the table is
 * printed as markdown for the README's support matrix.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreProfile, detectCore, unsupportedReason } from '../../app/core';
import { labCore } from '../../app/core/testing/cores';
import { memoryLogger } from '../../app/log/logger';
import { TunnelController } from '../../app/tunnel/controller';
import { freePorts } from '../../app/tunnel/ports';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import type { Server } from '../../shared/domain/server';
import { type InProcessLab, startLab } from '../lab';
import type { LabServerInfo } from '../lab/types';
import { urlThrough } from '../lab/modern-world';
import { type Cell, CLIENT_CORES, type ClientCore, cellKey, markdownTable, tableDifferences } from './table';

const V2RAY = 'unsupported: not supported by v2ray 4.34.0:';

/** Today's table, one line per cell. Change a line when a cell changes for a reason you can name. */
const EXPECTED: Record<string, Cell> = {
  'vmess tcp × xray': 'run',
  'vmess tcp × sing-box': 'run',
  'vmess tcp × v2ray': 'run',
  'vmess ws × xray': 'run',
  'vmess ws × sing-box': 'run',
  'vmess ws × v2ray': 'run',
  'vless tcp × xray': 'run',
  'vless tcp × sing-box': 'run',
  'vless tcp × v2ray': 'run',
  'vless ws × xray': 'run',
  'vless ws × sing-box': 'run',
  'vless ws × v2ray': 'run',
  'vless tcp+tls × xray': 'run',
  'vless tcp+tls × sing-box': 'run',
  'vless tcp+tls × v2ray': 'run',
  'trojan tcp × xray': 'run',
  'trojan tcp × sing-box': 'run',
  'trojan tcp × v2ray': 'run',
  'trojan tcp+tls × xray': 'run',
  'trojan tcp+tls × sing-box': 'run',
  'trojan tcp+tls × v2ray': 'run',
  'trojan ws+tls × xray': 'run',
  'trojan ws+tls × sing-box': 'run',
  'trojan ws+tls × v2ray': 'run',
  'shadowsocks chacha20-poly1305 × xray': 'run',
  'shadowsocks chacha20-poly1305 × sing-box': 'run',
  'shadowsocks chacha20-poly1305 × v2ray': 'run',
  'shadowsocks aes-128-gcm × xray': 'run',
  'shadowsocks aes-128-gcm × sing-box': 'run',
  'shadowsocks aes-128-gcm × v2ray': 'run',
  'shadowsocks aes-256-gcm × xray': 'run',
  'shadowsocks aes-256-gcm × sing-box': 'run',
  'shadowsocks aes-256-gcm × v2ray': 'run',
  'vless-reality-vision × xray': 'run',
  'vless-reality-vision × sing-box': 'run',
  'vless-reality-vision × v2ray': `${V2RAY} REALITY needs Xray ≥ 1.8.0`,
  'vless-xhttp × xray': 'run',
  'vless-xhttp × sing-box': "unsupported: not supported by sing-box 1.14.1: XHTTP is not available in sing-box",
  'vless-xhttp × v2ray': `${V2RAY} XHTTP needs Xray ≥ 1.8.16`,
  'vless-grpc-tls × xray': 'run',
  'vless-grpc-tls × sing-box': 'run',
  'vless-grpc-tls × v2ray': `${V2RAY} gRPC needs v2ray ≥ 4.36, v2ray 5 or Xray`,
  'vmess-httpupgrade × xray': 'run',
  'vmess-httpupgrade × sing-box': 'run',
  'vmess-httpupgrade × v2ray': `${V2RAY} HTTPUpgrade needs Xray ≥ 1.8.9 or v2ray 5`,
  'vless-httpupgrade × xray': 'run',
  'vless-httpupgrade × sing-box': 'run',
  'vless-httpupgrade × v2ray': `${V2RAY} HTTPUpgrade needs Xray ≥ 1.8.9 or v2ray 5`,
  'trojan-grpc-tls × xray': 'run',
  'trojan-grpc-tls × sing-box': 'run',
  'trojan-grpc-tls × v2ray': `${V2RAY} gRPC needs v2ray ≥ 4.36, v2ray 5 or Xray`,
  'hysteria2-salamander-hopping × xray': 'run',
  'hysteria2-salamander-hopping × sing-box': 'run',
  'hysteria2-salamander-hopping × v2ray': `${V2RAY} Hysteria2 needs Xray ≥ 26.1.13`,
  'tuic-v5 × xray': 'unsupported: not supported by Xray 26.3.27: TUIC needs sing-box (no v2ray or Xray version has TUIC)',
  'tuic-v5 × sing-box': 'run',
  'tuic-v5 × v2ray': `${V2RAY} TUIC needs sing-box (no v2ray or Xray version has TUIC)`,
  // Run as root (as here), Xray's WireGuard outbound makes a kernel TUN device, and the kernel
  // sends a loopback destination past it: the target is reached directly, not through the server.
  // (The lab's own client sets noKernelTun and goes through; the app does not set it.)
  'wireguard × xray': 'run',
  'wireguard × sing-box': "unsupported: not supported by sing-box 1.14.1: WireGuard is not in this build (it was built without with_wireguard)",
  'wireguard × v2ray': `${V2RAY} WireGuard needs Xray`,
  'shadowtls-v3 × xray': 'unsupported: not supported by Xray 26.3.27: the shadowsocks plugin "shadow-tls" is a separate program the core does not run',
  // ShadowTLS v3 borrows a real site's handshake, and sing-box verifies that site's certificate
  // against the system's store, as it would a real site's: the lab's site is trusted there (below).
  'shadowtls-v3 × sing-box': 'run',
  'shadowtls-v3 × v2ray': `${V2RAY} the shadowsocks plugin "shadow-tls" is a separate program the core does not run`,
  'shadowsocks-2022 × xray': 'run',
  'shadowsocks-2022 × sing-box': 'run',
  'shadowsocks-2022 × v2ray': `${V2RAY} Shadowsocks 2022 (2022-blake3-aes-128-gcm) needs Xray ≥ 1.6.0`,
  'anytls × xray': 'unsupported: not supported by Xray 26.3.27: AnyTLS needs sing-box ≥ 1.12',
  'anytls × sing-box': 'run',
  'anytls × v2ray': `${V2RAY} AnyTLS needs sing-box ≥ 1.12`,
  'hysteria-v1 × xray': 'unsupported: not supported by Xray 26.3.27: Hysteria (v1) needs sing-box (Xray has only Hysteria2)',
  'hysteria-v1 × sing-box': 'run',
  'hysteria-v1 × v2ray': `${V2RAY} Hysteria (v1) needs sing-box (Xray has only Hysteria2)`,
};

const DOWNLOAD_BYTES = 1024 * 1024;

let lab: InProcessLab;
let runtimeDir: string;
const trustBefore = process.env.SSL_CERT_FILE;
const profiles = new Map<ClientCore, CoreProfile>();

beforeAll(async () => {
  lab = await startLab({ servers: 12, subscriptions: 3, modern: true, latency: [5, 10] });
  expect(lab.info.modern?.leftOut).toEqual([]);
  for (const core of CLIENT_CORES) profiles.set(core, await detectCore(labCore(core)));
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-protocol-table-'));
  // The machine trusts the lab's sites as a user's machine trusts a real site: the lab's certificate
  // is the system store of the cores the tunnel starts (Go reads SSL_CERT_FILE). A server whose
  // certificate a user's machine would not trust still needs its link's pin or allowInsecure.
  const store = join(runtimeDir, 'lab-trust.pem');
  await writeFile(store, lab.modernCertificatePem);
  process.env.SSL_CERT_FILE = store;
}, 120_000);

afterAll(async () => {
  if (trustBefore === undefined) delete process.env.SSL_CERT_FILE;
  else process.env.SSL_CERT_FILE = trustBefore;
  await lab?.stop();
  if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
});

/** The row a lab server stands for: the v2ray world's protocol and transport, the modern block's kind. */
function rowOf(info: LabServerInfo, server: Server): string {
  if (info.kind) return info.kind;
  if (server.protocol === 'shadowsocks') return `shadowsocks ${server.method}`;
  return `${server.protocol} ${server.transport.network}${server.security.type === 'none' ? '' : `+${server.security.type}`}`;
}

async function get(proxy: string, url: string, timeoutMs: number): Promise<{ status: number; body: Buffer }> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
  } finally {
    await agent.destroy();
  }
}

/**
 * A cell's outcome; a failure is measured once more before it counts, because two cores are
 * shared by every engineer's tests on this machine and a lone slow moment is no broken protocol.
 */
async function measure(core: CoreProfile, server: Server, info: LabServerInfo, tag: string): Promise<Cell> {
  const first = await measureOnce(core, server, info, `${tag}-1`);
  if (first === 'run') return first;
  const second = await measureOnce(core, server, info, `${tag}-2`);
  if (second === 'run') console.log(`${tag}: ran on the second attempt; the first: ${first}`);
  return second;
}

/**
 * The tunnel's cores for a column. sing-box is never the main core: it carries servers behind
 * Xray, as in the app. For its column every server goes to it, so the main core is Xray with its
 * own protocols but SOCKS taken away (its front, the stats and the SOCKS hop stay real); the other
 * columns are the core alone.
 */
function tunnelCores(core: CoreProfile): { core: CoreProfile; carriers: CoreProfile[] } {
  if (core.family !== 'sing-box') return { core, carriers: [] };
  const xray = profiles.get('xray') as CoreProfile;
  // SOCKS stays: it is the main core's hop to the carrier.
  return { core: { ...xray, capabilities: { ...xray.capabilities, protocols: new Set(['socks']) } }, carriers: [core] };
}

/** Connect through the app's tunnel and check what a user would: the exit IP and a byte-exact download. */
async function measureOnce(core: CoreProfile, server: Server, info: LabServerInfo, tag: string): Promise<Cell> {
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const tunnel = new TunnelController({ ...tunnelCores(core), runtimeDir, logger: memoryLogger('debug').logger, httpPort, socksPort });
  try {
    const state = await tunnel.connect(server);
    if (state.state !== 'connected' || !state.httpProxy) return `fails: the tunnel did not connect (${state.state})`;
    // A WireGuard server's userspace stack drops packets to 127.0.0.1: the lab's sites are asked at
    // its tunnel address, which exists only inside the tunnel (modern-world.ts).
    const at = (url: string) => (server.protocol === 'wireguard' ? urlThrough({ kind: 'wireguard' }, url) : url);
    const ipinfo = await get(state.httpProxy, at(lab.info.ipinfoUrls['ip-api.com']), 15_000).catch((e: Error) => e);
    if (ipinfo instanceof Error) return `fails: the IP-info request failed (${ipinfo.message})`;
    const ip = (JSON.parse(ipinfo.body.toString('utf8')) as { query?: string }).query;
    if (ip !== info.exitIp) return `fails: exit IP ${ip ?? `none (HTTP ${ipinfo.status})`}, want the server's ${info.exitIp}`;
    const download = await get(state.httpProxy, at(`${lab.info.bytes}/${DOWNLOAD_BYTES}?tag=${encodeURIComponent(tag)}`), 60_000).catch((e: Error) => e);
    if (download instanceof Error) return `fails: the 1 MB download failed (${download.message})`;
    const got = createHash('sha256').update(download.body).digest('hex');
    if (download.body.length !== DOWNLOAD_BYTES || got !== lab.servedDigest(tag)) return `fails: the 1 MB download arrived changed (${download.body.length} bytes)`;
    return 'run';
  } catch (error) {
    return `fails: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  } finally {
    await tunnel.disconnect();
  }
}

describe('the protocol table', () => {
  it('every lab protocol through every client core: runs with its exit IP and a byte-exact 1 MB, or says why not', async () => {
    const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
    const rows: { row: string; label: string; info: LabServerInfo; server: Server }[] = [];
    lab.info.servers.forEach((info, i) => {
      const server = servers[i] as Server;
      const row = rowOf(info, server);
      if (!rows.some((r) => r.row === row)) rows.push({ row, label: `${row} (${info.hostedBy} server)`, info, server });
    });
    const actual: Record<string, Cell> = {};
    for (const { row, info, server } of rows) {
      for (const core of CLIENT_CORES) {
        const profile = profiles.get(core) as CoreProfile;
        const reason = unsupportedReason(server, profile);
        actual[cellKey(row, core)] = reason ? `unsupported: ${reason}` : await measure(profile, server, info, `${row}-${core}`);
      }
    }
    const markdown = markdownTable(rows, actual);
    console.log(`\n${markdown}\n`);
    const differences = tableDifferences(EXPECTED, actual);
    if (differences.length > 0) {
      console.log(`The table as measured, to paste into EXPECTED:\n${Object.entries(actual).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`).join('\n')}`);
    }
    expect(differences).toEqual([]);
  }, 900_000);
});
