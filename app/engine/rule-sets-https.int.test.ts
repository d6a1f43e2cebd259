/**
 * Rule sets served over HTTPS, as their public hosts serve them, fetched by the engine's own
 * rule-set pieces: a certificate from a CA the machine trusts (a throw-away CA given to the app's
 * process as a system would, NODE_EXTRA_CA_CERTS) is verified and the list put in force; a
 * certificate the machine does not trust leaves no copy and says why in words.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labCore } from '../core/testing/cores';
import { geositeDat } from '../routing/rule-sets/testing/geo-dat-writer';
import { makeThrowawayCertificates, type ThrowawayCertificates } from '../testing/throwaway-ca';

const dir = mkdtempSync(join(tmpdir(), 'https-rule-set-'));
let server: Server;
let certificates: ThrowawayCertificates;
let url: string;

function updateInProcess(trust: boolean, dataDir: string): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (trust) env.NODE_EXTRA_CA_CERTS = certificates.caPem;
  else delete env.NODE_EXTRA_CA_CERTS;
  const script = join(import.meta.dirname, 'testing', 'rule-set-update-once.ts');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', script, dataDir, url, labCore('xray')], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

beforeAll(async () => {
  certificates = makeThrowawayCertificates(dir);
  const list = geositeDat({ LABSET: [{ type: 'domain', value: 'inset.rules.test' }, { type: 'full', value: 'second.rules.test' }] });
  server = createServer({ key: readFileSync(certificates.keyPem), cert: readFileSync(certificates.certPem) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(list);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/geosite.dat`;
}, 30_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('a rule set served over HTTPS', () => {
  it('is fetched with its certificate verified against the machine’s trusted CAs, checked by Xray and put in force', async () => {
    const status = await updateInProcess(true, mkdtempSync(join(dir, 'trusted-')));
    expect(status).toMatchObject({ copy: { entries: 2, viaTunnel: false }, lastError: null });
  });

  it('is refused with a TLS error in words when the machine does not trust the certificate, and no copy is made', async () => {
    const status = await updateInProcess(false, mkdtempSync(join(dir, 'untrusted-')));
    expect(status).toMatchObject({ copy: null, lastError: expect.stringMatching(/TLS certificate of 127\.0\.0\.1:\d+ could not be verified \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/) });
  });
});
