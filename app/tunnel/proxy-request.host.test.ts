/**
 * The IPv6 check asks for `http(s)://[v6]:port/path` as the test URL's own host: the request
 * through a proxy inbound must carry that host in the Host header and, over TLS, as the server
 * name (SNI). Real sockets: a CONNECT proxy on 127.0.0.1 and targets on ::1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestThroughProxy } from './proxy-request';

const servers: (NetServer | HttpServer)[] = [];
const sockets = new Set<Socket>();
const seen = { connect: [] as string[], host: [] as string[], sni: [] as string[] };
let proxyUrl = '';
let httpPort = 0;
let httpsPort = 0;
let certDir = '';

function listen(server: NetServer | HttpServer, host: string): Promise<number> {
  servers.push(server);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  // A CONNECT proxy like a core's HTTP inbound: answers 200, then dials the target it was given.
  const proxy = createServer((client) => {
    client.on('error', () => undefined);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      client.off('data', onData);
      const target = /^CONNECT (\S+) /.exec(head)?.[1] ?? '';
      seen.connect.push(target);
      const at = target.lastIndexOf(':');
      const host = target.slice(0, at).replace(/^\[|\]$/g, '');
      const upstream = connect(Number(target.slice(at + 1)), host, () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        client.pipe(upstream);
        upstream.pipe(client);
      });
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy, '127.0.0.1')}`;

  const app = createHttpServer((req, res) => {
    seen.host.push(req.headers.host ?? '');
    res.writeHead(204).end();
  });
  httpPort = await listen(app, '::1');

  certDir = mkdtempSync(join(tmpdir(), 'steadfast-sni-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=probe.example.test', '-days', '1', '-keyout', join(certDir, 'k.pem'), '-out', join(certDir, 'c.pem')], {
    stdio: 'ignore',
  });
  const tls = createHttpsServer(
    {
      key: readFileSync(join(certDir, 'k.pem')),
      cert: readFileSync(join(certDir, 'c.pem')),
      SNICallback: (name, done) => {
        seen.sni.push(name);
        done(null);
      },
    },
    (_req, res) => res.writeHead(204).end(),
  );
  httpsPort = await listen(tls, '::1');
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(certDir, { recursive: true, force: true });
});

describe('requestThroughProxy with a Host header for an address URL', () => {
  it('tunnels to the bracketed IPv6 address and sends the host name as Host', async () => {
    const result = await requestThroughProxy({ proxyUrl, url: `http://[::1]:${httpPort}/generate_204`, timeoutMs: 3000, maxBytes: 0, hostHeader: `probe.example.test:${httpPort}` });
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(seen.connect.at(-1)).toBe(`[::1]:${httpPort}`);
    expect(seen.host.at(-1)).toBe(`probe.example.test:${httpPort}`);
  });

  it('over TLS the host name is also the server name (SNI), and the certificate is checked against it', async () => {
    const result = await requestThroughProxy({ proxyUrl, url: `https://[::1]:${httpsPort}/generate_204`, timeoutMs: 3000, maxBytes: 0, hostHeader: 'probe.example.test' });
    expect(seen.sni.at(-1)).toBe('probe.example.test');
    // The certificate names that host but nobody trusts it: the check ran against the host name, not "::1".
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.kind).toBe('tls');
  });

  it('without a Host header nothing changes: the address is the host', async () => {
    const result = await requestThroughProxy({ proxyUrl, url: `http://[::1]:${httpPort}/generate_204`, timeoutMs: 3000, maxBytes: 0 });
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(seen.host.at(-1)).toBe(`[::1]:${httpPort}`);
  });
});
