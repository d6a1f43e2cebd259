/**
 * The request through a proxy inbound against real local sockets: an HTTP CONNECT proxy that
 * behaves like a core's inbound in each way we met (tunnels, closes the tunnel, resets it, never
 * answers CONNECT), a plain HTTP target and a TLS target with a certificate nobody trusts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestThroughProxy } from './proxy-request';

type ProxyMode = 'tunnel' | 'close' | 'reset' | 'silent' | 'deny';

const servers: (NetServer | HttpServer)[] = [];
const sockets = new Set<Socket>();
const connectsSeen: Record<string, number> = {};

function listen<T extends NetServer | HttpServer>(server: T): Promise<number> {
  servers.push(server);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** An HTTP CONNECT proxy with one behaviour. */
function proxy(mode: ProxyMode): Promise<number> {
  const server = createServer((client) => {
    client.on('error', () => undefined);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      client.off('data', onData);
      const target = /^CONNECT (\S+) /.exec(head)?.[1] ?? '';
      connectsSeen[mode] = (connectsSeen[mode] ?? 0) + 1;
      if (mode === 'silent') return;
      if (mode === 'deny') return void client.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (mode === 'close') return void client.end();
      if (mode === 'reset') return void client.resetAndDestroy();
      const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
      const upstream = connect(port, host, () => {
        client.pipe(upstream);
        upstream.pipe(client);
      });
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  return listen(server);
}

let target = '';
let tlsTarget = '';
const ports: Record<ProxyMode, number> = { tunnel: 0, close: 0, reset: 0, silent: 0, deny: 0 };
const via = (mode: ProxyMode) => `http://127.0.0.1:${ports[mode]}`;

beforeAll(async () => {
  const app = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/generate_204') return void res.writeHead(204).end();
    if (url.pathname === '/moved') return void res.writeHead(302, { location: '/generate_204' }).end();
    if (url.pathname === '/bytes') return void res.end(Buffer.alloc(Number(url.searchParams.get('n')), 7));
    if (url.pathname === '/slow') return void setTimeout(() => res.writeHead(204).end(), Number(url.searchParams.get('ms')));
    res.writeHead(503).end('busy');
  });
  target = `http://127.0.0.1:${await listen(app)}`;

  const dir = mkdtempSync(join(tmpdir(), 'steadfast-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], {
    stdio: 'ignore',
  });
  const tls = createHttpsServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (_req, res) => res.writeHead(204).end());
  tlsTarget = `https://127.0.0.1:${await listen(tls)}`;
  rmSync(dir, { recursive: true, force: true });

  for (const mode of Object.keys(ports) as ProxyMode[]) ports[mode] = await proxy(mode);
});

afterAll(() => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
});

describe('requestThroughProxy', () => {
  it('measures the time to response headers through the tunnel', async () => {
    const result = await requestThroughProxy({ proxyUrl: via('tunnel'), url: `${target}/slow?ms=150`, timeoutMs: 2000, maxBytes: 0 });
    expect(result).toMatchObject({ ok: true, status: 204 });
    if (!result.ok) return;
    expect(result.headersMs).toBeGreaterThanOrEqual(145);
    expect(result.headersMs).toBeLessThan(1000);
  });

  it('opens a fresh connection for every request', async () => {
    const before = connectsSeen.tunnel ?? 0;
    for (let i = 0; i < 3; i++) await requestThroughProxy({ proxyUrl: via('tunnel'), url: `${target}/generate_204`, timeoutMs: 2000, maxBytes: 0 });
    expect((connectsSeen.tunnel ?? 0) - before).toBe(3);
  });

  it('does not follow redirects: the redirect is the answer', async () => {
    const result = await requestThroughProxy({ proxyUrl: via('tunnel'), url: `${target}/moved`, timeoutMs: 2000, maxBytes: 0 });
    expect(result).toMatchObject({ ok: true, status: 302 });
  });

  it('keeps at most maxBytes of the body', async () => {
    const full = await requestThroughProxy({ proxyUrl: via('tunnel'), url: `${target}/bytes?n=1000`, timeoutMs: 2000, maxBytes: 4096 });
    expect(full).toMatchObject({ ok: true, truncated: false });
    if (full.ok) expect(full.body.length).toBe(1000);
    const cut = await requestThroughProxy({ proxyUrl: via('tunnel'), url: `${target}/bytes?n=300000`, timeoutMs: 2000, maxBytes: 1000 });
    expect(cut).toMatchObject({ ok: true, truncated: true });
    if (cut.ok) expect(cut.body.length).toBe(1000);
  });

  it.each([
    ['a proxy that never answers CONNECT (undici#3481)', 'silent', `/generate_204`],
    ['a proxy that never answers CONNECT, https target', 'silent', 'tls'],
    ['a target that answers too late', 'tunnel', '/slow?ms=5000'],
  ] as const)('settles with timeout at its own deadline: %s', async (_name, mode, path) => {
    const url = path === 'tls' ? `${tlsTarget}/` : `${target}${path}`;
    const started = Date.now();
    const result = await requestThroughProxy({ proxyUrl: via(mode), url, timeoutMs: 400, maxBytes: 0 });
    const took = Date.now() - started;
    expect(result).toMatchObject({ ok: false, failure: { kind: 'timeout', closedEarly: false } });
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(480);
  });

  it.each([
    ['the tunnel closed (http target)', 'close', 'http'],
    ['the tunnel closed (https target)', 'close', 'https'],
    ['the tunnel reset (http target)', 'reset', 'http'],
    ['the tunnel reset (https target)', 'reset', 'https'],
  ] as const)('marks a tunnel that went away before any answer as closedEarly: %s', async (_name, mode, scheme) => {
    const result = await requestThroughProxy({ proxyUrl: via(mode), url: scheme === 'http' ? `${target}/generate_204` : `${tlsTarget}/`, timeoutMs: 2000, maxBytes: 0 });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'network', closedEarly: true } });
  });

  it('reports a certificate nobody trusts as tls', async () => {
    const result = await requestThroughProxy({ proxyUrl: via('tunnel'), url: `${tlsTarget}/`, timeoutMs: 2000, maxBytes: 0 });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'tls' } });
  });

  it('reports a proxy refusing the tunnel, and a proxy that is not there, without blaming the server', async () => {
    const denied = await requestThroughProxy({ proxyUrl: via('deny'), url: `${target}/generate_204`, timeoutMs: 2000, maxBytes: 0 });
    expect(denied).toMatchObject({ ok: false, failure: { kind: 'network', closedEarly: false } });
    const free = await listen(createServer());
    servers.pop()?.close();
    await new Promise((r) => setTimeout(r, 20));
    const absent = await requestThroughProxy({ proxyUrl: `http://127.0.0.1:${free}`, url: `${target}/generate_204`, timeoutMs: 2000, maxBytes: 0 });
    expect(absent).toMatchObject({ ok: false, failure: { kind: 'unknown' } });
  });

  it('stops at once when the caller cancels', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const result = await requestThroughProxy({ proxyUrl: via('silent'), url: `${target}/generate_204`, timeoutMs: 5000, maxBytes: 0, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(300);
    expect(result).toMatchObject({ ok: false, failure: { cancelled: true } });
  });
});
