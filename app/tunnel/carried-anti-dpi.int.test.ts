/**
 * The anti-DPI options for servers sing-box carries, seen where a censor sees them: the app's
 * settings → each server's options (antiDpiFor) → the app's tunnel (Xray as the main core,
 * sing-box carrying the lab's AnyTLS and TUIC servers, hosted by sing-box) → a watching relay in
 * front of the lab's own. sing-box dials the server through Xray's anti-DPI outbound, so the
 * AnyTLS ClientHello arrives in the configured pieces (whole for a server set to off), and TUIC's
 * first datagram is the configured noise, before its QUIC Initial; each still carries traffic,
 * out through that server (its exit IP at the lab's IP-info stand-in).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { describeHello, expectFragmented, expectWhole } from '../../e2e/lab/hello-pieces';
import { Relay } from '../../e2e/lab/relay';
import type { LabServerInfo } from '../../e2e/lab/types';
import { ClientChunkLog, DatagramWatch, isQuicInitial } from '../../e2e/lab/wire-watch';
import type { Server } from '../../shared/domain/server';
import { type AntiDpiSettings, antiDpiSettingsSchema } from '../../shared/settings';
import { antiDpiFor } from '../core/anti-dpi';
import { type Logger, memoryLogger } from '../log/logger';
import { TunnelController } from './controller';
import { freePorts } from './ports';
import { serversFromLinks } from './testing/lab-servers';
import { useModernLab } from '../../e2e/lab/modern-lab-suite';

const modern = useModernLab('carried-anti-dpi-');
const { network, stops } = modern;
let tunnel: TunnelController | null = null;

afterEach(async () => {
  await tunnel?.disconnect();
  tunnel = null;
});

/** The lab's server of this kind, as the app reads its share link. */
function labServer(kind: string): { info: LabServerInfo; server: Server } {
  const info = modern.lab.info.servers.find((s) => s.kind === kind);
  if (!info) throw new Error(`the lab has no ${kind} server: ${JSON.stringify(modern.lab.info.modern?.leftOut)}`);
  return { info, server: serversFromLinks([info.shareLink])[0]! };
}

const hostPort = (address: string) => ({ host: address.slice(0, address.lastIndexOf(':')), port: Number(address.slice(address.lastIndexOf(':') + 1)) });

/** A TCP relay in front of the lab's relay that records what each client sends. */
async function watchedTcp(info: LabServerInfo): Promise<{ relay: Relay; log: ClientChunkLog }> {
  const log = new ClientChunkLog();
  const relay = new Relay({ frontAddress: '127.0.0.1', upstream: hostPort(info.relay), network, onClientData: log.hook });
  await relay.start();
  stops.push(() => relay.stop());
  return { relay, log };
}

async function watchedUdp(info: LabServerInfo): Promise<DatagramWatch> {
  const watch = await new DatagramWatch(hostPort(info.relay)).start();
  stops.push(() => watch.stop());
  return watch;
}

/** The app's tunnel with these settings' options, connected to `server`; what it logged, and its exit IP. */
async function connectThrough(server: Server, settings: AntiDpiSettings): Promise<{ log: string[]; exitIp: string | undefined }> {
  const logged = memoryLogger('debug');
  const state = await connectOnFreePorts(server, settings, logged.logger);
  expect(state.state).toBe('connected');
  const agent = new ProxyAgent(state.httpProxy!);
  try {
    const answer = await request(modern.lab.info.ipinfoUrls['ip-api.com'], { dispatcher: agent, signal: AbortSignal.timeout(15_000) });
    const exitIp = (JSON.parse(await answer.body.text()) as { query?: string }).query;
    return { log: logged.lines, exitIp };
  } finally {
    await agent.destroy();
  }
}

/**
 * A free port can be taken by another program before a core binds it (freePorts says so), and the
 * machine these tests share runs thousands of listeners: a start that loses that race is tried
 * again on fresh ports, as a user's next connect would; any other failure is the test's.
 */
async function connectOnFreePorts(server: Server, settings: AntiDpiSettings, logger: Logger, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    tunnel = new TunnelController({ core: modern.xray, carriers: [modern.singBox], runtimeDir: modern.runtimeDir, logger, httpPort, socksPort, antiDpi: (id) => antiDpiFor(settings, id) });
    try {
      return await tunnel.connect(server);
    } catch (error) {
      if (attempt >= attempts || !/cannot listen on .*address already in use/.test(String(error))) throw error;
      console.log(`${server.name}: a port was taken before the core bound it; connecting again (${String(error)})`);
      await tunnel.disconnect();
    }
  }
}

describe('TLS ClientHello fragment, for an AnyTLS server sing-box carries', () => {
  it('on: the ClientHello reaches the server in the configured pieces and interval; own values where set; whole for a server set to off; each carries traffic', async () => {
    const { info, server } = labServer('anytls');
    const fragment = { enabled: true, packets: 'tlshello', length: '100-200', interval: '20-30' };
    const own = { enabled: true, packets: 'tlshello', length: '300-400', interval: '40-50' };
    const quietNoise = { enabled: false, type: 'rand', packet: '10-20', delay: '10-16' } as const;
    const settings = antiDpiSettingsSchema.parse({ fragment, servers: { whole: 'off', own: { fragment: own, noise: quietNoise } } });
    const sni = (server.security as { sni?: string }).sni!;
    for (const [id, check] of [
      ['global', (chunks) => expectFragmented(chunks, fragment, sni, 'global options')],
      ['own', (chunks) => expectFragmented(chunks, own, sni, 'the server’s own options')],
      ['whole', (chunks) => expectWhole(chunks, sni, 'a server set to off')],
    ] as const satisfies readonly (readonly [string, (chunks: ClientChunkLog['connections'][number]['chunks']) => void])[]) {
      const watched = await watchedTcp(info);
      const [host, port] = [watched.relay.address.split(':')[0]!, Number(watched.relay.address.split(':')[1])];
      const { log, exitIp } = await connectThrough({ ...server, id, name: `AnyTLS ${id}`, address: host, port }, settings);
      await tunnel!.disconnect();
      expect(exitIp, id).toBe(info.exitIp);
      expect(watched.log.connections.length, id).toBeGreaterThan(0);
      check(watched.log.connections[0]!.chunks);
      const applied = log.some((l) => l.includes(`AnyTLS ${id}: the anti-DPI options are applied by Xray`));
      expect(applied, id).toBe(id !== 'whole');
      expect(log.some((l) => l.includes('not applied to a server')), id).toBe(false);
    }
  }, 120_000);
});

describe('TLS ClientHello fragment, for a ShadowTLS v3 server sing-box carries', () => {
  it('"tlshello" is left out and said (re-framed, the server refuses it) and the server answers; a packet range of its own splits the borrowed ClientHello’s bytes, and it still answers', async () => {
    // ShadowTLS borrows the lab's site, whose certificate sing-box checks against the system
    // store: the machine trusts it, as a user's machine trusts a real site's (protocol-table test).
    const trustBefore = process.env.SSL_CERT_FILE;
    const store = join(modern.runtimeDir, 'lab-trust.pem');
    await writeFile(store, modern.lab.modernCertificatePem);
    process.env.SSL_CERT_FILE = store;
    try {
      const { info, server } = labServer('shadowtls-v3');
      const records = { enabled: true, packets: 'tlshello', length: '100-200', interval: '20-30' };
      const raw = { enabled: true, packets: '1-1', length: '150-250', interval: '20-30' };
      const quietNoise = { enabled: false, type: 'rand', packet: '10-20', delay: '10-16' } as const;
      const settings = antiDpiSettingsSchema.parse({ fragment: records, servers: { raw: { fragment: raw, noise: quietNoise } } });
      const borrowed = /(?:^|;)host=([^;]+)/.exec((server as { plugin?: { options: string } }).plugin?.options ?? '')?.[1];

      const plain = await watchedTcp(info);
      const asRecords = await connectThrough({ ...server, id: 'records', name: 'ShadowTLS records', address: '127.0.0.1', port: Number(plain.relay.address.split(':')[1]) }, settings);
      await tunnel!.disconnect();
      expect(asRecords.exitIp).toBe(info.exitIp);
      expectWhole(plain.log.connections[0]!.chunks, borrowed!, 'tlshello, left out');
      expect(asRecords.log.some((l) => /ShadowTLS records: the TLS ClientHello fragment in TLS records \("tlshello"\) would break ShadowTLS v3/.test(l))).toBe(true);

      const split = await watchedTcp(info);
      const asRaw = await connectThrough({ ...server, id: 'raw', name: 'ShadowTLS raw', address: '127.0.0.1', port: Number(split.relay.address.split(':')[1]) }, settings);
      expect(asRaw.exitIp).toBe(info.exitIp);
      const chunks = split.log.connections[0]!.chunks;
      const hello = describeHello(chunks);
      expect(hello?.serverName).toBe(borrowed);
      // One ClientHello record, its bytes spread over reads of the configured lengths (a piece
      // read late shares its read with the next one: most are single pieces even on a busy machine).
      expect(hello?.records).toHaveLength(1);
      const sizes = chunks.slice(0, hello!.records[0]!.chunk + 1).map((c) => c.data.length);
      expect(sizes.length, `reads ${sizes.join(', ')}`).toBeGreaterThan(1);
      const single = sizes.slice(0, -1).filter((n) => n >= 150 && n <= 250);
      expect(single.length, `reads ${sizes.join(', ')}`).toBeGreaterThanOrEqual((sizes.length - 1) / 2);
    } finally {
      if (trustBefore === undefined) delete process.env.SSL_CERT_FILE;
      else process.env.SSL_CERT_FILE = trustBefore;
    }
  }, 60_000);
});

describe('UDP noise, for a TUIC server sing-box carries', () => {
  it('on: the configured noise datagram, the pause, then the QUIC Initial, and the server still answers; the fragment is said not to apply; off for a server: the Initial comes first', async () => {
    const { info, server } = labServer('tuic-v5');
    const noise = { enabled: true, type: 'rand', packet: '50-60', delay: '80-100' } as const;
    const fragment = { enabled: true, packets: 'tlshello', length: '100-200', interval: '20-30' };
    const settings = antiDpiSettingsSchema.parse({ noise, fragment, servers: { quiet: 'off' } });

    const noisyWatch = await watchedUdp(info);
    const noisy = await connectThrough({ ...server, id: 'noisy', name: 'TUIC noisy', address: '127.0.0.1', port: noisyWatch.port }, settings);
    await tunnel!.disconnect();
    expect(noisy.exitIp).toBe(info.exitIp);
    const flow = noisyWatch.firstFlow();
    // One noise entry is written, so exactly one datagram comes before the handshake.
    expect(flow.findIndex((d) => isQuicInitial(d.data))).toBe(1);
    const [first, second] = flow;
    expect(first!.data.length).toSatisfy((n: number) => n >= 50 && n <= 60);
    // Xray sleeps 80-100 ms after the noise. The Initial then crosses one more process than on a
    // server Xray runs (sing-box's datagram reaches Xray's inbound after the noise is sent), and
    // on a machine shared with other tests' cores that took up to 160 ms (load average 14).
    const pause = second!.atMs - first!.atMs;
    expect(pause).toBeGreaterThanOrEqual(80 * 0.75);
    expect(pause).toBeLessThanOrEqual(100 + 100);
    expect(noisy.log.some((l) => /TUIC noisy: the TLS ClientHello fragment does not apply to TUIC .*inside QUIC; connecting without it/.test(l))).toBe(true);

    const quietWatch = await watchedUdp(info);
    const quiet = await connectThrough({ ...server, id: 'quiet', name: 'TUIC quiet', address: '127.0.0.1', port: quietWatch.port }, settings);
    expect(quiet.exitIp).toBe(info.exitIp);
    expect(isQuicInitial(quietWatch.firstFlow()[0]!.data)).toBe(true);
  }, 120_000);
});
