import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpSubscriptionFetcher, classifyFetchError, defaultUserAgent, parseAnnounce, parseProfileTitle, parseSubscriptionUserinfo } from './fetch';
import { ProviderServer } from './testing/provider-server';

describe('subscription-userinfo and profile-title headers', () => {
  it.each([
    ['upload=455727941; download=6174315083; total=1073741824000; expire=1767225600', { upload: 455727941, download: 6174315083, total: 1073741824000, expire: 1767225600 }],
    ['Upload = 1 ;DOWNLOAD=2;total=3', { upload: 1, download: 2, total: 3 }],
    ['upload=1, download=2, expire=0', { upload: 1, download: 2 }],
    ['total=1.5e9', { total: 1500000000 }],
    ['download=abc; total=-5; nonsense', null],
    ['', null],
  ])('%s', (header, expected) => {
    expect(parseSubscriptionUserinfo(header)).toEqual(expected);
  });

  it('reads the provider’s announce header: base64: (Remnawave), plain, raw UTF-8; line breaks kept', () => {
    expect(parseAnnounce(`base64:${Buffer.from('Достигнут лимит устройств.\nУдалите одно в боте.').toString('base64')}`)).toBe('Достигнут лимит устройств.\nУдалите одно в боте.');
    expect(parseAnnounce('Renew before 1 Dec')).toBe('Renew before 1 Dec');
    expect(parseAnnounce(Buffer.from('تمدید کنید').toString('latin1'))).toBe('تمدید کنید');
    expect(parseAnnounce('  ')).toBeNull();
    expect(parseAnnounce(undefined)).toBeNull();
  });

  it('reads plain, base64: and raw UTF-8 titles', () => {
    expect(parseProfileTitle('My VPN')).toBe('My VPN');
    expect(parseProfileTitle(`base64:${Buffer.from('🇮🇷 سرورهای من').toString('base64')}`)).toBe('🇮🇷 سرورهای من');
    expect(parseProfileTitle(Buffer.from('Мой VPN').toString('latin1'))).toBe('Мой VPN');
    expect(parseProfileTitle('base64:!!!')).toBeNull();
  });
});

describe('HttpSubscriptionFetcher against a real local server', () => {
  let provider: ProviderServer;
  let special: Server;
  let specialUrl: string;
  const fetcher = new HttpSubscriptionFetcher({ timeoutMs: 500 });

  beforeAll(async () => {
    provider = await ProviderServer.start();
    special = createServer((req, res) => {
      const path = req.url ?? '';
      const redirect = /^\/r(\d+)$/.exec(path);
      if (redirect) {
        const n = Number(redirect[1]);
        res.writeHead(302, { location: n > 0 ? `/r${n - 1}` : '/gzip' });
        res.end();
      } else if (path === '/gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'profile-title': 'base64:8J+HqfCfh6ogREU=' });
        res.end(gzipSync('vless://list'));
      } else if (path === '/br') {
        res.writeHead(200, { 'content-encoding': 'br' });
        res.end(brotliCompressSync('trojan://list'));
      } else if (path === '/bomb') {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.alloc(20 * 1024 * 1024)));
      } else if (path === '/declared-huge') {
        res.writeHead(200, { 'content-length': String(64 * 1024 * 1024) });
        res.write('x');
      } else if (path === '/disposition') {
        res.writeHead(200, { 'content-disposition': "attachment; filename*=UTF-8''%D0%9C%D0%BE%D0%B9%20VPN.txt" });
        res.end('x');
      }
    });
    await new Promise<void>((resolve) => special.listen(0, '127.0.0.1', resolve));
    specialUrl = `http://127.0.0.1:${(special.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await fetcher.close();
    await provider.stop();
    special.closeAllConnections();
    await new Promise<void>((resolve) => special.close(() => resolve()));
  });

  it('returns the body with usage and title, and identifies itself honestly', async () => {
    provider.mode = { kind: 'ok', body: 'vless://x', headers: { 'subscription-userinfo': 'upload=1; download=2; total=3; expire=4', 'profile-title': 'Provider' } };
    const outcome = await fetcher.fetch(provider.url);
    expect(outcome).toMatchObject({ ok: true, status: 200, usage: { upload: 1, download: 2, total: 3, expire: 4 }, title: 'Provider' });
    expect(outcome.ok && outcome.body.toString()).toBe('vless://x');
    expect(provider.userAgents.at(-1)).toBe(defaultUserAgent());
    expect(defaultUserAgent()).toMatch(/^SteadfastVPN\/\d+\.\d+\.\d+ \(.*v2ray.*Clash/);
  });

  it('sends a subscription\'s own User-Agent when it has one (panels choose the format by it)', async () => {
    provider.mode = { kind: 'ok', body: 'vless://x' };
    await fetcher.fetch(provider.url, { userAgent: 'clash-verge/v1.7.7' });
    expect(provider.userAgents.at(-1)).toBe('clash-verge/v1.7.7');
  });

  it('follows up to 5 redirects and decompresses gzip and brotli', async () => {
    // r4 → r3 → r2 → r1 → r0 → /gzip: five redirects.
    const outcome = await fetcher.fetch(`${specialUrl}/r4`);
    expect(outcome).toMatchObject({ ok: true, title: '🇩🇪 DE' });
    expect(outcome.ok && outcome.body.toString()).toBe('vless://list');
    const br = await fetcher.fetch(`${specialUrl}/br`);
    expect(br.ok && br.body.toString()).toBe('trojan://list');
  });

  it('takes the name from content-disposition when there is no profile-title', async () => {
    expect(await fetcher.fetch(`${specialUrl}/disposition`)).toMatchObject({ ok: true, title: 'Мой VPN' });
  });

  const serve = (mode: ProviderServer['mode']) => {
    provider.mode = mode;
    return provider.url;
  };
  const failures: [string, () => string, string, RegExp][] = [
    ['more than 5 redirects', () => `${specialUrl}/r5`, 'redirects', /redirected more than 5 times/],
    ['an HTTP error status', () => serve({ kind: 'status', status: 503 }), 'http-status', /answered HTTP 503 \(Service Unavailable\)$/],
    ['a server that never answers', () => serve({ kind: 'hang' }), 'timeout', /did not finish answering within 0\.5 s$/],
    ['a 50 MB body', () => serve({ kind: 'huge', megabytes: 50 }), 'too-large', /larger than 10 MiB; it was not read further$/],
    ['a declared Content-Length over the cap', () => `${specialUrl}/declared-huge`, 'too-large', /larger than 10 MiB/],
    ['a gzip bomb (the cap counts decompressed bytes)', () => `${specialUrl}/bomb`, 'too-large', /larger than 10 MiB/],
    ['a closed port', () => 'http://127.0.0.1:1/sub', 'refused', /^127\.0\.0\.1:1 refused the connection$/],
    ['a non-http scheme', () => 'ftp://127.0.0.1/sub', 'invalid-url', /must start with http:\/\/ or https:\/\//],
    ['a malformed URL', () => 'http://', 'invalid-url', /not a valid URL/],
  ];
  it.each(failures)('classifies %s with a clear sentence and no URL path in it', async (_title, target, kind, message) => {
    const started = performance.now();
    const outcome = await fetcher.fetch(target());
    expect(outcome).toMatchObject({ ok: false, kind, message: expect.stringMatching(message) });
    expect(outcome.ok || outcome.message).not.toContain('8f14e45fceea167a');
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('TLS is always verified', () => {
  let dir: string | null = null;
  try {
    dir = mkdtempSync(join(tmpdir(), 'tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  } catch {
    dir = null;
  }

  it.skipIf(dir === null)('a self-signed certificate fails as a TLS error', async () => {
    const server = createTlsServer({ key: readFileSync(join(dir as string, 'key.pem')), cert: readFileSync(join(dir as string, 'cert.pem')) }, (_req, res) => res.end('vless://x'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const fetcher = new HttpSubscriptionFetcher({ timeoutMs: 3000 });
    try {
      const outcome = await fetcher.fetch(`https://127.0.0.1:${(server.address() as AddressInfo).port}/sub`);
      expect(outcome).toMatchObject({ ok: false, kind: 'tls', message: expect.stringMatching(/TLS certificate of 127\.0\.0\.1:\d+ could not be verified \(DEPTH_ZERO_SELF_SIGNED_CERT\)/) });
    } finally {
      await fetcher.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('classifyFetchError', () => {
  const limits = { connectTimeoutMs: 10_000, headersTimeoutMs: 15_000, maxBytes: 10 * 1024 * 1024 };
  const withCode = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });
  it.each([
    [withCode('ENOTFOUND'), 'dns', 'the name provider.example could not be resolved (DNS: ENOTFOUND)'],
    [withCode('EAI_AGAIN'), 'dns', 'the name provider.example could not be resolved (DNS: EAI_AGAIN)'],
    [withCode('UND_ERR_SOCKET', withCode('ECONNRESET')), 'reset', 'the connection to provider.example:8443 was reset'],
    [Object.assign(new AggregateError([withCode('ECONNREFUSED')]), {}), 'refused', 'provider.example:8443 refused the connection'],
    [withCode('CERT_HAS_EXPIRED'), 'tls', 'the TLS certificate of provider.example:8443 could not be verified (CERT_HAS_EXPIRED)'],
    [withCode('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls', 'the TLS certificate of provider.example:8443 could not be verified (ERR_TLS_CERT_ALTNAME_INVALID)'],
    [withCode('UND_ERR_CONNECT_TIMEOUT'), 'timeout', 'could not connect to provider.example:8443 within 10 s'],
    [withCode('UND_ERR_HEADERS_TIMEOUT'), 'timeout', 'provider.example:8443 accepted the connection but did not answer within 15 s'],
    [withCode('UND_ERR_BODY_TIMEOUT'), 'timeout', 'provider.example:8443 stopped sending in the middle of the response'],
    [withCode('Z_DATA_ERROR'), 'network', 'the response from provider.example:8443 is corrupt (its compressed data does not decode)'],
    [withCode('ENETUNREACH'), 'network', 'provider.example:8443 is unreachable from this network (ENETUNREACH)'],
  ])('%s', (error, kind, message) => {
    expect(classifyFetchError(error, 'provider.example:8443', limits)).toEqual({ ok: false, kind, message });
  });
});
