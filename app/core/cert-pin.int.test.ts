/**
 * Pinned servers (`pcs`, `vcn`) against Debian's real v2ray 4.34, which cannot pin: what the app
 * writes for it passes the binary's config test, and a self-signed server whose link also allows
 * skipping verification is reached, from the link to traffic. (Xray's own pin and name checks
 * run against real servers in cert-pin-xray.int.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { parseLinkList } from '../subscriptions/parse/links';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { type CoreProfile, detectCore, outboundFor, proberConfig, unsupportedReason, writeConfigFile } from './index';
import { testConfig } from './run-core';
import { sampleServer } from './samples';

const V2RAY = '/usr/bin/v2ray';
const PIN = '54807151bd83523fee9081f08d708aecb59a3f3e75f154d7e96d35f51149ff8e';
let core: CoreProfile;
let dir: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cert-pin-int-'));
  core = await detectCore(V2RAY);
});
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await rm(dir, { recursive: true, force: true });
});

const asServer = (link: string, port?: number): Server => {
  const parsed = parseLinkList(link);
  if (!parsed.servers[0]) throw new Error(`${link}: ${parsed.rejected[0]?.reason}`);
  return { ...parsed.servers[0], id: 'x', subscriptionId: 's', ...(port ? { port } : {}) } as Server;
};

describe('v2ray 4.34 and pinned servers', () => {
  it('every config written for a pinned or name-verified entry passes `v2ray -test`', async () => {
    const servers = [
      sampleServer('trojan', 'tcp', { security: { type: 'tls', sni: 'sub.domain.net', pinnedCertSha256: [PIN], verifyName: 'test.dom.com', allowInsecure: true } }),
      sampleServer('vless', 'ws', { security: { type: 'tls', sni: 'sub.domain.net', verifyName: 'test.dom.com' } }),
      sampleServer('vmess', 'h2', { security: { type: 'tls', pinnedCertSha256: [PIN], allowInsecure: true } }),
    ];
    for (const [i, server] of servers.entries()) {
      expect(unsupportedReason(server, core)).toBeNull();
      expect(await testConfig(core, { outbounds: [outboundFor(server, core, 'proxy')] }, dir, `pinned-${i}`)).toEqual({ ok: true, message: 'Configuration OK.' });
    }
  });

  it('a self-signed trojan server: the link with pcs and allowInsecure carries traffic, the pin-only link is refused before dialling', async () => {
    const cert = JSON.parse(execFileSync('v2ctl', ['cert', '--domain=example.test', '--expire=24h'], { encoding: 'utf8' })) as { certificate: string[]; key: string[] };
    // The pin a panel would print for this server: openssl's colon form of the certificate's SHA-256.
    const fingerprint = new X509Certificate(cert.certificate.join('\n')).fingerprint256;
    const [serverPort, probePort] = (await freePorts(2)) as [number, number];
    const serverConfig = {
      log: { loglevel: 'warning', access: 'none' },
      inbounds: [{ protocol: 'trojan', listen: '127.0.0.1', port: serverPort, settings: { clients: [{ password: 'pinned-pw' }] }, streamSettings: { security: 'tls', tlsSettings: { certificates: [cert] } } }],
      outbounds: [{ protocol: 'freedom', settings: {} }],
    };
    const servers = startCore(V2RAY, ['-config', await writeConfigFile(dir, 'pinned-server', serverConfig)]);
    stops.push(servers.stop);
    await waitForPort(serverPort);

    const target: HttpServer = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise((resolve) => target.close(() => resolve())));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/generate_204`;

    const link = `trojan://pinned-pw@127.0.0.1:${serverPort}?security=tls&sni=example.test&pcs=${encodeURIComponent(fingerprint)}`;
    const pinOnly = asServer(`${link}#pin-only`);
    expect(pinOnly.security.pinnedCertSha256).toHaveLength(1);
    expect(unsupportedReason(pinOnly, core)).toMatch(/pins its certificate \(pcs\) and this core cannot check a pin/);

    const allowed = asServer(`${link}&allowInsecure=1#pin-and-insecure`);
    expect(unsupportedReason(allowed, core)).toBeNull();
    const prober = startCore(V2RAY, ['-config', await writeConfigFile(dir, 'pinned-prober', proberConfig({ entries: [{ server: allowed, port: probePort }], core, listen: '127.0.0.1' }))]);
    stops.push(prober.stop);
    await waitForPort(probePort);
    expect(await curlThrough(`http://127.0.0.1:${probePort}`, targetUrl)).toBe('204');
  });
});
