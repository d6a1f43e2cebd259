/**
 * Certificate pins (`pcs`) and the name to verify by (`vcn`) on the real Xray: links parsed by the
 * app, the prober's config written for them, one Xray process carrying them to trojan servers
 * behind TLS fronts on loopback. A certificate the link accepts carries traffic; one it does not
 * is refused during the handshake, so the server never sees an application byte.
 */
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { parseLinkList } from '../subscriptions/parse/links';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { type CoreProfile, detectCore, proberConfig, unsupportedReason, writeConfigFile } from './index';
import { coreRunArgs, testConfig } from './run-core';
import { labCore } from './testing/cores';
import { caSigned, type Certificate, selfSigned, TlsFront } from './testing/tls-front';

const PASSWORD = 'pinned-pw';
let core: CoreProfile;
let dir: string;
let targetUrl: string;
let trojanPort: number;
let self: Certificate;
let other: Certificate;
let chain: ReturnType<typeof caSigned>;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cert-pin-xray-'));
  core = await detectCore(labCore('xray'));
  self = selfSigned('pinned.lab.test');
  other = selfSigned('other.lab.test');
  chain = caSigned('Lab Test CA', 'real.lab.test');

  const target: HttpServer = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => target.close(() => resolve())));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/generate_204`;

  // The trojan server behind every TLS front, without TLS of its own (the front terminates it).
  [trojanPort] = (await freePorts(1)) as [number];
  const trojan = {
    log: { loglevel: 'warning', access: 'none' },
    inbounds: [{ protocol: 'trojan', listen: '127.0.0.1', port: trojanPort, settings: { clients: [{ password: PASSWORD }] } }],
    outbounds: [{ protocol: 'freedom', settings: {} }],
  };
  const server = startCore(labCore('v2ray'), ['-config', await writeConfigFile(dir, 'trojan-server', trojan)]);
  stops.push(server.stop);
  await waitForPort(trojanPort);
});

afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await rm(dir, { recursive: true, force: true });
});

const asServer = (link: string, id: string): Server => {
  const parsed = parseLinkList(link);
  if (!parsed.servers[0]) throw new Error(`${link}: ${parsed.rejected[0]?.reason}`);
  return { ...parsed.servers[0], id, subscriptionId: 's' } as Server;
};

const colonForm = (hex: string) => hex.toUpperCase().match(/../g)!.join(':');

interface Case {
  name: string;
  /** The certificate the server presents: a self-signed one, or a leaf for real.lab.test signed by the lab CA. */
  presents: 'self-signed' | 'ca-signed';
  /** The link's query after `security=tls`. */
  query: () => string;
  /** Xray trusts the lab CA as a root (SSL_CERT_FILE), as a machine trusting a real CA would. */
  trustsCa?: boolean;
  connects: boolean;
}

const cases: Case[] = [
  { name: 'the pin of its certificate', presents: 'self-signed', query: () => `sni=pinned.lab.test&pcs=${self.sha256}`, connects: true },
  { name: 'the pin in openssl’s colon form', presents: 'self-signed', query: () => `sni=pinned.lab.test&pcs=${encodeURIComponent(colonForm(self.sha256))}`, connects: true },
  { name: 'two pins, the right one second', presents: 'self-signed', query: () => `sni=pinned.lab.test&pcs=${other.sha256}~${self.sha256}`, connects: true },
  { name: 'another certificate’s pin', presents: 'self-signed', query: () => `sni=pinned.lab.test&pcs=${other.sha256}`, connects: false },
  { name: 'the CA pinned, the name the certificate holds as vcn', presents: 'ca-signed', query: () => `sni=front.lab.test&pcs=${chain.ca.sha256}&vcn=real.lab.test`, connects: true },
  { name: 'the CA pinned, no vcn (the certificate does not name the SNI)', presents: 'ca-signed', query: () => `sni=front.lab.test&pcs=${chain.ca.sha256}`, connects: false },
  { name: 'the CA pinned, a vcn the certificate does not hold', presents: 'ca-signed', query: () => `sni=front.lab.test&pcs=${chain.ca.sha256}&vcn=wrong.lab.test`, connects: false },
  { name: 'a trusted CA, vcn the name the certificate holds', presents: 'ca-signed', trustsCa: true, query: () => 'sni=front.lab.test&vcn=real.lab.test', connects: true },
  { name: 'a trusted CA, no vcn', presents: 'ca-signed', trustsCa: true, query: () => 'sni=front.lab.test', connects: false },
  { name: 'a trusted CA, a vcn the certificate does not hold', presents: 'ca-signed', trustsCa: true, query: () => 'sni=front.lab.test&vcn=wrong.lab.test', connects: false },
  { name: 'vcn alone, the CA not trusted', presents: 'ca-signed', query: () => 'sni=front.lab.test&vcn=real.lab.test', connects: false },
];

interface Running {
  front: TlsFront;
  probePort: number;
}

/** One TLS front per case (so its records are that case's alone), and one Xray per trust setting. */
async function runAll(): Promise<Running[]> {
  const ports = (await freePorts(cases.length)) as number[];
  const running: Running[] = [];
  for (const [i, c] of cases.entries()) {
    const front = await new TlsFront(c.presents === 'self-signed' ? self : chain.leaf, trojanPort).start();
    stops.push(() => front.stop());
    running.push({ front, probePort: ports[i]! });
  }
  const caFile = join(dir, 'lab-ca.pem');
  await writeFile(caFile, chain.ca.cert);
  for (const trusted of [false, true]) {
    const entries = cases.flatMap((c, i) => {
      if ((c.trustsCa ?? false) !== trusted) return [];
      const server = asServer(`trojan://${PASSWORD}@127.0.0.1:${running[i]!.front.port}?security=tls&${c.query()}#${encodeURIComponent(c.name)}`, `case-${i}`);
      expect(unsupportedReason(server, core), c.name).toBeNull();
      return [{ server, port: running[i]!.probePort }];
    });
    const file = await writeConfigFile(dir, `prober-${trusted ? 'trusted' : 'plain'}`, proberConfig({ entries, core, listen: '127.0.0.1' }));
    const prober = startCore(core.path, coreRunArgs(core, file), trusted ? { SSL_CERT_FILE: caFile } : {});
    stops.push(prober.stop);
    await Promise.all(entries.map((e) => waitForPort(e.port)));
  }
  return running;
}

describe('Xray and pinned certificates', () => {
  it('what the app writes is what Xray 26 reads: several pins joined with `,` load, joined with `~` (the links’ form) are refused', async () => {
    const tls = (pins: string) => ({
      outbounds: [{ protocol: 'trojan', settings: { servers: [{ address: '127.0.0.1', port: 1, password: 'x' }] }, streamSettings: { security: 'tls', tlsSettings: { pinnedPeerCertSha256: pins } } }],
    });
    const pins = [other.sha256, self.sha256];
    expect(await testConfig(core, tls(pins.join(',')), dir, 'pins-comma')).toMatchObject({ ok: true });
    expect(await testConfig(core, tls(pins.join('~')), dir, 'pins-tilde')).toMatchObject({ ok: false });
  });

  it('connects only where the link accepts the certificate, and a refused one sends the server no application byte', async () => {
    const running = await runAll();
    const outcomes = await Promise.all(running.map((r) => curlThrough(`http://127.0.0.1:${r.probePort}`, targetUrl)));
    const seen = cases.map((c, i) => ({
      name: c.name,
      connects: outcomes[i] === '204',
      handshakes: running[i]!.front.connections.filter((t) => t.secured).length,
      appBytes: running[i]!.front.connections.reduce((n, t) => n + t.appBytes, 0),
      dialled: running[i]!.front.connections.length > 0,
    }));
    for (const s of seen) {
      const expected = cases.find((c) => c.name === s.name)!.connects;
      // Every case dialled its server: a refusal is the certificate's, not a missing connection.
      expect(s, s.name).toMatchObject(expected ? { connects: true, dialled: true } : { connects: false, dialled: true, handshakes: 0, appBytes: 0 });
      if (expected) expect(s.appBytes, s.name).toBeGreaterThan(0);
    }
    // The client itself ended each refused handshake, with TLS's alert for a certificate it rejects.
    const refusals = cases.flatMap((c, i) => (c.connects ? [] : running[i]!.front.connections));
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) expect(refusal.error).toMatch(/alert bad certificate/);
  });
});
