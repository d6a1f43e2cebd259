import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { EngineRefusal } from '../../shared/domain/refusal';
import type { EventName, EventPayloads, VpnClient } from '../../shared/ipc/contract';
import { type HeadlessHost, startHeadlessHost } from './host';

/** A service that answers every channel by echoing what it was asked, and can emit events. */
function echoService(): { service: VpnClient; emit<E extends EventName>(e: E, p: EventPayloads[E]): void; calls: [string, unknown][] } {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const calls: [string, unknown][] = [];
  const service = new Proxy({} as VpnClient, {
    get(_t, prop: string) {
      if (prop === 'on') {
        return (event: string, listener: (p: unknown) => void) => {
          if (!listeners.has(event)) listeners.set(event, new Set());
          listeners.get(event)!.add(listener);
          return () => listeners.get(event)!.delete(listener);
        };
      }
      return async (req: unknown) => {
        calls.push([prop, req]);
        if (prop === 'testAll') throw new Error('the monitor is not running');
        if (prop === 'captureScreen') throw new EngineRefusal('screen-reading-unavailable', 'reading the screen is possible only in the desktop app');
        if (prop === 'setSettings') throw new EngineRefusal('invalid-setting', 'invalid setting httpPort: too big', REFUSED_PORT);
        return { echoed: prop, req };
      };
    },
  });
  return { service, calls, emit: (e, p) => listeners.get(e)?.forEach((l) => l(p)) };
}

const REFUSED_PORT = { topic: 'number-too-big', params: { limit: 65535 }, path: ['httpPort'], english: 'invalid setting httpPort: too big' } as const;

function rendererDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'renderer-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, '..', 'secret.txt'), 'do not serve');
  return dir;
}

function httpGet(host: HeadlessHost, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function openSocket(url: string, origin?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, origin ? { origin } : {});
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function nextMessage(ws: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
}

let host: HeadlessHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('headless host', () => {
  it('binds loopback and prints a URL that carries the token', async () => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{40,}$/);
  });

  it('serves the renderer with a strict CSP and refuses paths outside it', async () => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    const page = await httpGet(host, '/');
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'self'");
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect((await httpGet(host, '/assets/app.js')).status).toBe(200);
    expect((await httpGet(host, '/../secret.txt')).body).not.toContain('do not serve');
    expect((await httpGet(host, '/%2e%2e/secret.txt')).body).not.toContain('do not serve');
    expect((await httpGet(host, '/assets/..%2f..%2fsecret.txt')).body).not.toContain('do not serve');
  });

  it('refuses a request whose Host is not ours (DNS rebinding)', async () => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    expect((await httpGet(host, '/', { host: `evil.example:${host.port}` })).status).toBe(421);
  });

  it.each([
    ['no token', (h: HeadlessHost) => `ws://127.0.0.1:${h.port}/ws`, undefined],
    ['a wrong token', (h: HeadlessHost) => `ws://127.0.0.1:${h.port}/ws?token=${h.token.slice(1)}x`, undefined],
    ['a foreign origin', (h: HeadlessHost) => `ws://127.0.0.1:${h.port}/ws?token=${h.token}`, 'https://evil.example'],
  ])('refuses a WebSocket with %s', async (_name, url, origin) => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    await expect(openSocket(url(host), origin)).rejects.toThrow(/refused 403/);
    expect(host.clientCount()).toBe(0);
  });

  it('pushes the snapshot as the first frame to a window that asks for it on connect, unasked for by the window; others get only answers', async () => {
    const { service, calls } = echoService();
    host = await startHeadlessHost({ service, rendererDir: rendererDir() });
    // Listening from the first byte: the push may come before 'open' is seen.
    const asking = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}&snapshot=on-open`, { origin: host.origin });
    const first = nextMessage(asking);
    expect(await first).toEqual({ kind: 'event', event: 'snapshot', payload: { echoed: 'getSnapshot', req: {} } });
    expect(calls.map(([channel]) => channel)).toEqual(['getSnapshot']);

    const plain = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);
    plain.send(JSON.stringify({ kind: 'invoke', id: 1, channel: 'connect', payload: { serverId: 'A1' } }));
    expect(await nextMessage(plain)).toMatchObject({ kind: 'result', id: 1, ok: true });
    expect(calls.map(([channel]) => channel)).toEqual(['getSnapshot', 'connect']);
    asking.close();
    plain.close();
  });

  it('the app page’s load with the token has the snapshot made before its window connects; an event in between has it made anew', async () => {
    const { service, calls, emit } = echoService();
    host = await startHeadlessHost({ service, rendererDir: rendererDir() });
    const snapshots = () => calls.filter(([channel]) => channel === 'getSnapshot').length;
    const connectAsking = async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${host!.port}/ws?token=${host!.token}&snapshot=on-open`, { origin: host!.origin });
      const first = await nextMessage(ws);
      ws.close();
      return first;
    };

    // A page asked for without the token (a stray request) has nothing made.
    await httpGet(host, '/');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(snapshots()).toBe(0);

    await httpGet(host, `/?token=${host.token}`);
    await vi.waitFor(() => expect(snapshots()).toBe(1));
    expect(await connectAsking()).toEqual({ kind: 'event', event: 'snapshot', payload: { echoed: 'getSnapshot', req: {} } });
    expect(snapshots()).toBe(1);

    await httpGet(host, `/?token=${host.token}`);
    await vi.waitFor(() => expect(snapshots()).toBe(2));
    emit('connection', { state: 'connecting', serverId: 'A1', error: null } as EventPayloads['connection']);
    expect(await connectAsking()).toMatchObject({ kind: 'event', event: 'snapshot' });
    expect(snapshots()).toBe(3);
  });

  it('answers the app page before it makes the window’s first snapshot, so a slow snapshot does not hold the page up', async () => {
    const { service } = echoService();
    const SNAPSHOT_BUSY_MS = 1500;
    const slow = new Proxy(service, {
      get(target, prop: string) {
        if (prop !== 'getSnapshot') return Reflect.get(target, prop) as unknown;
        // The engine's work on 5,000 servers holds the event loop as this does.
        return () => {
          const until = Date.now() + SNAPSHOT_BUSY_MS;
          while (Date.now() < until);
          return Promise.resolve({});
        };
      },
    });
    host = await startHeadlessHost({ service: slow, rendererDir: rendererDir() });
    // The page is asked for by another process, as a browser does: this one's loop is what is held.
    const client = `const t = performance.now(); require('node:http').get(process.argv[1], (res) => { console.log(Math.round(performance.now() - t)); res.resume(); });`;
    const elapsed = await new Promise<number>((resolve, reject) =>
      execFile(process.execPath, ['-e', client, `http://127.0.0.1:${host!.port}/?token=${host!.token}`], (error, stdout) => (error ? reject(error) : resolve(Number(stdout.trim())))),
    );
    expect(elapsed).toBeLessThan(SNAPSHOT_BUSY_MS / 2);
  });

  it('a request whose target is no URL is answered and leaves the host serving', async () => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(host!.port, '127.0.0.1', () => socket.end(`GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${host!.port}\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 [45]\d\d/);
    expect((await httpGet(host, `/?token=${host.token}`)).status).toBe(200);
  });

  it('answers valid requests and rejects invalid ones with a clear error', async () => {
    const { service, calls } = echoService();
    host = await startHeadlessHost({ service, rendererDir: rendererDir() });
    const ws = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);

    ws.send(JSON.stringify({ kind: 'invoke', id: 1, channel: 'connect', payload: { serverId: 'A1' } }));
    expect(await nextMessage(ws)).toEqual({ kind: 'result', id: 1, ok: true, value: { echoed: 'connect', req: { serverId: 'A1' } } });

    ws.send(JSON.stringify({ kind: 'invoke', id: 2, channel: 'connect', payload: { serverId: 5 } }));
    expect(await nextMessage(ws)).toMatchObject({ id: 2, ok: false, error: expect.stringMatching(/invalid connect request: serverId/) });

    ws.send(JSON.stringify({ kind: 'invoke', id: 3, channel: 'connect', payload: { serverId: 'A1', extra: true } }));
    expect(await nextMessage(ws)).toMatchObject({ id: 3, ok: false });

    ws.send(JSON.stringify({ kind: 'invoke', id: 4, channel: 'rm -rf', payload: {} }));
    expect(await nextMessage(ws)).toMatchObject({ id: 4, ok: false, error: 'unknown channel "rm -rf"' });

    ws.send('{not json');
    expect(await nextMessage(ws)).toMatchObject({ id: -1, ok: false, error: 'the message is not JSON' });

    ws.send(JSON.stringify({ kind: 'invoke', id: 5, channel: 'testAll', payload: {} }));
    expect(await nextMessage(ws)).toMatchObject({ id: 5, ok: false, error: 'the monitor is not running' });

    expect(calls.map(([c]) => c)).toEqual(['connect', 'testAll']);
    ws.close();
  });

  it('a refusal carries its code beside the engine’s words; one without a code is words alone', async () => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    const ws = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);
    ws.send(JSON.stringify({ kind: 'invoke', id: 1, channel: 'captureScreen', payload: {} }));
    expect(await nextMessage(ws)).toEqual({
      kind: 'result',
      id: 1,
      ok: false,
      error: 'reading the screen is possible only in the desktop app',
      code: 'screen-reading-unavailable',
    });
    ws.send(JSON.stringify({ kind: 'invoke', id: 2, channel: 'testAll', payload: {} }));
    expect(await nextMessage(ws)).toEqual({ kind: 'result', id: 2, ok: false, error: 'the monitor is not running' });
    // A refused settings value comes with its problem, for the window to word in the user's language:
    // from the engine's own check, and from the host's gate before it.
    ws.send(JSON.stringify({ kind: 'invoke', id: 3, channel: 'setSettings', payload: { httpPort: 8080 } }));
    expect(await nextMessage(ws)).toEqual({ kind: 'result', id: 3, ok: false, error: 'invalid setting httpPort: too big', code: 'invalid-setting', validation: REFUSED_PORT });
    ws.send(JSON.stringify({ kind: 'invoke', id: 4, channel: 'setSettings', payload: { httpPort: 70000 } }));
    expect(await nextMessage(ws)).toMatchObject({ id: 4, ok: false, code: 'invalid-setting', validation: { topic: 'number-too-big', params: { limit: 65535 }, path: ['httpPort'] } });
    ws.close();
  });

  it('refuses oversized messages', async () => {
    host = await startHeadlessHost({ service: echoService().service, rendererDir: rendererDir() });
    const ws = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send('x'.repeat(18 * 1024 * 1024));
    expect(await closed).toBe(1009);
  });

  it('pushes events to every connected client', async () => {
    const { service, emit } = echoService();
    host = await startHeadlessHost({ service, rendererDir: rendererDir() });
    const a = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);
    const b = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`);
    const got = Promise.all([nextMessage(a), nextMessage(b)]);
    emit('testProgress', { running: true, done: 1, total: 12 });
    expect(await got).toEqual([
      { kind: 'event', event: 'testProgress', payload: { running: true, done: 1, total: 12 } },
      { kind: 'event', event: 'testProgress', payload: { running: true, done: 1, total: 12 } },
    ]);
    a.close();
    b.close();
  });
  it('cuts off a window that stops reading, so the engine does not queue for it without end, and keeps serving the others', async () => {
    const { service, emit } = echoService();
    host = await startHeadlessHost({ service, rendererDir: rendererDir(), maxBufferedEventBytes: 256 * 1024 });
    const stalled = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);
    const reading = await openSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, host.origin);
    stalled.pause(); // a page that no longer reads: the kernel's buffers fill, then the host's
    let received = 0;
    reading.on('message', () => (received += 1));
    // Far more than loopback's socket buffers hold, sent in bursts so the reading window drains.
    for (let burst = 0; burst < 40 && host.clientCount() === 2; burst++) {
      for (let i = 0; i < 5_000; i++) emit('testProgress', { running: true, done: i, total: 5_000 });
      await new Promise((ok) => setTimeout(ok, 20));
    }
    expect(host.clientCount()).toBe(1);
    // The reading window may still be draining earlier bursts: wait for the event sent after the cut.
    const last = new Promise<unknown>((ok) =>
      reading.on('message', (d) => {
        const message = JSON.parse(String(d)) as { payload: { running: boolean } };
        if (!message.payload.running) ok(message);
      }),
    );
    emit('testProgress', { running: false, done: 5_000, total: 5_000 });
    expect(await last).toEqual({ kind: 'event', event: 'testProgress', payload: { running: false, done: 5_000, total: 5_000 } });
    expect(received).toBeGreaterThan(5_000);
    stalled.terminate();
    reading.close();
  });
});
