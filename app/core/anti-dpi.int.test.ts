/**
 * Xray's anti-DPI options seen where a censor sees them, on the wire in front of the server: the
 * app's settings → each server's options (antiDpiFor) → the prober's and the tunnel's configs →
 * a real Xray. The TLS ClientHello reaches the server's relay in pieces of the configured
 * lengths, spaced by the configured interval, or whole when the options are off for that server;
 * UDP noise datagrams come before a Hysteria2 server's first QUIC packet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabNetwork } from '../../e2e/lab/network';
import { Relay } from '../../e2e/lab/relay';
import { ClientChunkLog, type Datagram, DatagramLog, isQuicInitial } from '../../e2e/lab/wire-watch';
import type { Server } from '../../shared/domain/server';
import { type AntiDpiSettings, antiDpiSettingsSchema } from '../../shared/settings';
import { parseLinkList } from '../subscriptions/parse/links';
import { antiDpiFor } from './anti-dpi';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { type CoreProfile, detectCore, proberConfig, writeConfigFile } from './index';
import { coreRunArgs } from './run-core';
import { tunnelConfig } from './tunnel-config';
import { waitFor } from '../testing/wait';
import { labCore } from './testing/cores';
import { describeHello, expectFragmented as expectPieces, expectSpaced, range } from '../../e2e/lab/hello-pieces';
import { type Certificate, selfSigned, TlsFront } from './testing/tls-front';

const PASSWORD = 'anti-dpi-pw';
const SNI = 'hidden.lab.test';
let core: CoreProfile;
let dir: string;
let targetUrl: string;
let front: TlsFront;
let cert: Certificate;
const network = new LabNetwork();
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'anti-dpi-int-'));
  core = await detectCore(labCore('xray'));
  cert = selfSigned(SNI);

  const target: HttpServer = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => target.close(() => resolve())));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/generate_204`;

  const [trojanPort] = (await freePorts(1)) as [number];
  const trojan = {
    log: { loglevel: 'warning', access: 'none' },
    inbounds: [{ protocol: 'trojan', listen: '127.0.0.1', port: trojanPort, settings: { clients: [{ password: PASSWORD }] } }],
    outbounds: [{ protocol: 'freedom', settings: {} }],
  };
  const server = startCore(labCore('v2ray'), ['-config', await writeConfigFile(dir, 'trojan-server', trojan)]);
  stops.push(server.stop);
  await waitForPort(trojanPort);
  front = await new TlsFront(cert, trojanPort).start();
  stops.push(() => front.stop());
});

afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await rm(dir, { recursive: true, force: true });
});

/** A relay in front of the TLS server that records what each client sends. */
async function watchedRelay(): Promise<{ relay: Relay; log: ClientChunkLog }> {
  const log = new ClientChunkLog();
  const relay = new Relay({ frontAddress: '127.0.0.1', upstream: { host: '127.0.0.1', port: front.port }, network, onClientData: log.hook });
  await relay.start();
  stops.push(() => relay.stop());
  return { relay, log };
}

function trojanServer(id: string, relay: Relay): Server {
  const link = `trojan://${PASSWORD}@${relay.address}?security=tls&sni=${SNI}&pcs=${cert.sha256}#${id}`;
  const parsed = parseLinkList(link);
  if (!parsed.servers[0]) throw new Error(`${link}: ${parsed.rejected[0]?.reason}`);
  return { ...parsed.servers[0], id, subscriptionId: 's' } as Server;
}

const expectFragmented = (chunks: Parameters<typeof expectPieces>[0], fragment: { length: string; interval: string }, label: string) => expectPieces(chunks, fragment, SNI, label);

describe('TLS ClientHello fragment, at the server', () => {
  it('on: pieces of the configured lengths and interval; a server set to off gets it whole; one with its own values gets those, and every server still answers', async () => {
    const global = { enabled: true, packets: 'tlshello', length: '100-200', interval: '20-30' };
    const own = { enabled: true, packets: 'tlshello', length: '300-400', interval: '40-50' };
    // A packet range instead of tlshello: the first write is cut as raw bytes, not into TLS records.
    const firstPacket = { enabled: true, packets: '1-1', length: '150-250', interval: '20-30' };
    const quietNoise = { enabled: false, type: 'rand', packet: '10-20', delay: '10-16' } as const;
    const settings = antiDpiSettingsSchema.parse({
      fragment: global,
      servers: {
        whole: 'off',
        own: { fragment: own, noise: quietNoise },
        packet: { fragment: firstPacket, noise: quietNoise },
      },
    });
    const ids = ['global', 'whole', 'own', 'packet'] as const;
    const relays = await Promise.all(ids.map(() => watchedRelay()));
    const ports = (await freePorts(ids.length)) as number[];
    // One prober carries the three, each with the options the settings give it, as the monitor would.
    const entries = ids.map((id, i) => ({ server: trojanServer(id, relays[i]!.relay), port: ports[i]!, antiDpi: antiDpiFor(settings, id) }));
    const file = await writeConfigFile(dir, 'prober', proberConfig({ entries, core, listen: '127.0.0.1' }));
    const prober = startCore(core.path, coreRunArgs(core, file));
    stops.push(prober.stop);
    await Promise.all(ports.map((p) => waitForPort(p)));

    const outcomes = await Promise.all(ports.map((p) => curlThrough(`http://127.0.0.1:${p}`, targetUrl)));
    expect(outcomes).toEqual(['204', '204', '204', '204']);
    const [fragmented, whole, ownValues, rawPieces] = relays.map((r) => r.log.connections[0]!.chunks);
    expectFragmented(fragmented!, global, 'global options');
    expectFragmented(ownValues!, own, 'the server’s own options');
    const unfragmented = describeHello(whole!);
    expect(unfragmented?.serverName).toBe(SNI);
    expect(unfragmented?.records.map((r) => r.length)).toEqual([unfragmented!.helloBytes]);

    // Packet 1 cut as it is: one ClientHello record spread over reads of the configured lengths.
    const raw = describeHello(rawPieces!);
    expect(raw?.serverName).toBe(SNI);
    expect(raw?.records).toHaveLength(1);
    const helloReads = rawPieces!.slice(0, raw!.records[0]!.chunk + 1);
    const sizes = helloReads.map((c) => c.data.length);
    // Raw pieces carry no framing: the reads are all there is, and a piece read late shares its
    // read with the next one. Most reads are single pieces even on a busy machine.
    const single = sizes.slice(0, -1).filter((n) => n >= 150 && n <= 250);
    expect(single.length, `reads ${sizes.join(', ')}`).toBeGreaterThanOrEqual((sizes.length - 1) / 2);
    expect(Math.max(...sizes), `reads ${sizes.join(', ')}`).toBeLessThan(5 + raw!.helloBytes);
    // A read holding two pieces only lengthens the gaps; there were at most this many pieces.
    expectSpaced(helloReads.map((c) => c.atMs), range(firstPacket.interval), 'packet 1', Math.ceil((5 + raw!.helloBytes) / 150));
  });
});

describe('TLS ClientHello fragment, chained server', () => {
  it('the first hop, the connection the network sees, is fragmented; the server reached through it gets its ClientHello whole', async () => {
    const [upstream, server] = [await watchedRelay(), await watchedRelay()];
    const via = trojanServer('first-hop', upstream.relay);
    const chained = { ...trojanServer('chained', server.relay), via: via.id };
    const fragment = { enabled: true, packets: 'tlshello', length: '100-200', interval: '10-20' };
    const settings = antiDpiSettingsSchema.parse({ fragment });
    const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const config = tunnelConfig({ server: chained, via, core, listen: '127.0.0.1', httpPort, socksPort, apiPort, antiDpi: antiDpiFor(settings, chained.id) });
    const tunnel = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, 'tunnel-chained', config)));
    stops.push(tunnel.stop);
    await waitForPort(httpPort);

    expect(await curlThrough(`http://127.0.0.1:${httpPort}`, targetUrl)).toBe('204');
    expectFragmented(upstream.log.connections[0]!.chunks, fragment, 'the first hop');
    // The second hop's handshake travels inside the first hop's TLS, out of the censor's sight.
    const inner = describeHello(server.log.connections[0]!.chunks);
    expect(inner?.records.map((r) => r.length)).toEqual([inner!.helloBytes]);
  });
});

describe('UDP noise, at a Hysteria2 server', () => {
  const hysteria2 = (id: string, port: number): Server => {
    const link = `hysteria2://hy-pw@127.0.0.1:${port}?sni=${SNI}&pcs=${cert.sha256}#${id}`;
    const parsed = parseLinkList(link);
    if (!parsed.servers[0]) throw new Error(`${link}: ${parsed.rejected[0]?.reason}`);
    return { ...parsed.servers[0], id, subscriptionId: 's' } as Server;
  };

  /** The tunnel's own config for one server, a request through it, and what its UDP listener heard first. */
  async function firstDatagrams(id: string, settings: AntiDpiSettings): Promise<Datagram[]> {
    const listener = await new DatagramLog().start();
    stops.push(() => listener.stop());
    const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const config = tunnelConfig({ server: hysteria2(id, listener.port), core, listen: '127.0.0.1', httpPort, socksPort, apiPort, antiDpi: antiDpiFor(settings, id) });
    const tunnel = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, `tunnel-${id}`, config)));
    stops.push(tunnel.stop);
    await waitForPort(httpPort);
    // Nothing answers the QUIC handshake: the request fails, and what it sent first is recorded.
    const request = curlThrough(`http://127.0.0.1:${httpPort}`, targetUrl, 2);
    await waitFor('a QUIC Initial at the listener', () => listener.firstFlow().some((d) => isQuicInitial(d.data)), 5000, 20);
    await tunnel.stop();
    await request;
    return listener.firstFlow();
  }

  it('on: the configured noise datagram, then the pause, then the QUIC Initial; off for a server: the Initial comes first', async () => {
    const noise = { enabled: true, type: 'rand', packet: '50-60', delay: '80-100' } as const;
    const settings = antiDpiSettingsSchema.parse({ noise, servers: { quiet: 'off' } });
    const [noisy, quiet] = await Promise.all([firstDatagrams('noisy', settings), firstDatagrams('quiet', settings)]);

    // One noise entry is written, so exactly one datagram comes before the handshake.
    expect(noisy.findIndex((d) => isQuicInitial(d.data))).toBe(1);
    const [first, second] = noisy;
    expect(first!.data.length).toSatisfy((n: number) => n >= 50 && n <= 60);
    expect(isQuicInitial(second!.data)).toBe(true);
    // Xray sleeps 80-100 ms after the noise; the noise read late on a busy machine shortens it here.
    const pause = second!.atMs - first!.atMs;
    expect(pause).toBeGreaterThanOrEqual(80 * 0.75);
    expect(pause).toBeLessThanOrEqual(100 + 50);

    expect(isQuicInitial(quiet[0]!.data)).toBe(true);
  });

  it.each([
    { type: 'str', packet: 'GET / HTTP/1.1', bytes: Buffer.from('GET / HTTP/1.1') },
    { type: 'base64', packet: '3q2+7w==', bytes: Buffer.from([0xde, 0xad, 0xbe, 0xef]) },
  ] as const)('a $type noise arrives as the bytes it names, before the Initial', async ({ type, packet, bytes }) => {
    const settings = antiDpiSettingsSchema.parse({ noise: { enabled: true, type, packet, delay: '10-16' } });
    const [first, second] = await firstDatagrams(type, settings);
    expect(first!.data).toEqual(bytes);
    expect(isQuicInitial(second!.data)).toBe(true);
  });
});
