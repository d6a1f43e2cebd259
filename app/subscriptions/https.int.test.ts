/**
 * Subscriptions over HTTPS as providers serve them: a certificate from a CA the machine trusts
 * (here a throw-away CA given to the app's process as a system would, NODE_EXTRA_CA_CERTS), TLS
 * always verified. Fetched directly, and through a real Xray HTTP inbound as the tunnel fallback
 * does (CONNECT, then TLS end to end with the provider); a process that does not trust the CA
 * gets a TLS error in words, never the list.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCore, writeConfigFile } from '../core';
import { freePorts, startCore, waitForPort, type RunningCore } from '../core/int-support';
import { coreRunArgs } from '../core/run-core';
import { labCore } from '../core/testing/cores';
import { makeThrowawayCertificates, type ThrowawayCertificates } from '../testing/throwaway-ca';

const LINKS = 'vless://b831381d-6324-4d53-ad4f-8cda48b30811@127.0.0.1:443?security=none#one\ntrojan://pw@127.0.0.1:443#two\n';
const dir = mkdtempSync(join(tmpdir(), 'https-sub-'));
let server: Server;
let certificates: ThrowawayCertificates;
let url: string;
let proxy: RunningCore;
let proxyUrl: string;

function fetchInProcess(trust: boolean, through?: string): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (trust) env.NODE_EXTRA_CA_CERTS = certificates.caPem;
  else delete env.NODE_EXTRA_CA_CERTS;
  const script = join(import.meta.dirname, 'testing', 'fetch-once.ts');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', script, url, ...(through ? [through] : [])], { env, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

beforeAll(async () => {
  certificates = makeThrowawayCertificates(dir);
  server = createServer({ key: readFileSync(certificates.keyPem), cert: readFileSync(certificates.certPem) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from(LINKS).toString('base64'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/sub/8f14e45fceea167a`;
  // The tunnel's local HTTP inbound, in miniature: Xray's own, leaving by freedom.
  const xray = await detectCore(labCore('xray'));
  const [httpPort] = (await freePorts(1)) as [number];
  const config = { log: { loglevel: 'warning' }, inbounds: [{ listen: '127.0.0.1', port: httpPort, protocol: 'http', settings: {} }], outbounds: [{ protocol: 'freedom', settings: {} }] };
  proxy = startCore(xray.path, coreRunArgs(xray, await writeConfigFile(dir, 'proxy', config)));
  await waitForPort(httpPort);
  proxyUrl = `http://127.0.0.1:${httpPort}`;
}, 30_000);

afterAll(async () => {
  await proxy?.stop();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('a subscription served over HTTPS', () => {
  it('is fetched with its certificate verified against the machine’s trusted CAs', async () => {
    expect(await fetchInProcess(true)).toEqual({ ok: true, status: 200, body: Buffer.from(LINKS).toString('base64') });
  });

  it('is fetched through the tunnel’s HTTP inbound (CONNECT, TLS end to end) with the same verification', async () => {
    expect(await fetchInProcess(true, proxyUrl)).toMatchObject({ ok: true, status: 200 });
  });

  it('is refused with a TLS error in words when the machine does not trust the certificate, directly and through the tunnel', async () => {
    for (const through of [undefined, proxyUrl]) {
      const outcome = await fetchInProcess(false, through);
      expect(outcome).toMatchObject({ ok: false, kind: 'tls', message: expect.stringMatching(/TLS certificate of 127\.0\.0\.1:\d+ could not be verified \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/) });
      expect(JSON.stringify(outcome)).not.toContain('8f14e45fceea167a');
    }
  });
});
