import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deviceHeaders, loadDeviceIdentity } from './device-identity';
import { HttpSubscriptionFetcher } from './fetch';
import { parseSubscription } from './parse';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'device-id-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the device identity', () => {
  it('is made once, saved private, and the same on the next start', async () => {
    const first = await loadDeviceIdentity(dir);
    expect(first.problem).toBeNull();
    expect(first.identity.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await stat(join(dir, 'device-id.json'))).mode & 0o777).toBe(0o600);
    const second = await loadDeviceIdentity(dir);
    expect(second.identity).toEqual(first.identity);
  });

  it('a damaged file is set aside and replaced, and start-up goes on', async () => {
    await writeFile(join(dir, 'device-id.json'), '{"id": 42');
    const loaded = await loadDeviceIdentity(dir);
    expect(loaded.identity.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(loaded.problem?.topic).toEqual({ kind: 'file-unreadable', file: 'device-id.json', recovered: 'empty' });
    expect(loaded.note).toMatch(/device-id\.json was unreadable/);
    expect(JSON.parse(await readFile(join(dir, 'device-id.json'), 'utf8')).id).toBe(loaded.identity.id);
  });

  it('"send": false in the file leaves every device header out', async () => {
    await writeFile(join(dir, 'device-id.json'), JSON.stringify({ id: '3b241101-e2bb-4255-8caf-4136c566a962', send: false }));
    const { identity } = await loadDeviceIdentity(dir);
    expect(deviceHeaders(identity)).toEqual({});
  });

  it('names the system the way Remnawave lists devices', () => {
    const identity = { id: '3b241101-e2bb-4255-8caf-4136c566a962', send: true };
    expect(deviceHeaders(identity, 'win32', '10.0.22631')).toEqual({ 'x-hwid': identity.id, 'x-device-os': 'Windows', 'x-ver-os': '10.0.22631' });
    expect(deviceHeaders(identity, 'darwin', '24.1.0')['x-device-os']).toBe('macOS');
    expect(deviceHeaders(identity, 'linux', '6.1.0')['x-device-os']).toBe('Linux');
  });
});

describe('a panel that limits devices (answers "App not supported" without x-hwid)', () => {
  let panel: Server;
  let url: string;
  const seen: IncomingHttpHeaders[] = [];
  const SERVER = 'vless://a7e505a9-d63f-48ac-92f3-85ebcd7d7018@nl.example.com:443?security=tls#NL';
  const NOTICE = `vless://00000000-0000-0000-0000-000000000000@0.0.0.0:1#${encodeURIComponent('App not supported')}`;

  beforeAll(async () => {
    panel = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Buffer.from(req.headers['x-hwid'] ? SERVER : NOTICE).toString('base64'));
    });
    await new Promise<void>((resolve) => panel.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(panel.address() as AddressInfo).port}/sub/token`;
  });
  afterAll(() => new Promise<void>((resolve) => panel.close(() => resolve())));

  it('with the identity the servers come; without it, only the notice, which is not taken for a server', async () => {
    const { identity } = await loadDeviceIdentity(dir);
    const withId = new HttpSubscriptionFetcher({ extraHeaders: deviceHeaders(identity) });
    const without = new HttpSubscriptionFetcher();
    try {
      const served = await withId.fetch(url);
      if (!served.ok) throw new Error(served.message);
      expect(parseSubscription(served.body).servers.map((s) => s.name)).toEqual(['NL']);
      expect(seen.at(-1)?.['x-hwid']).toBe(identity.id);
      expect(seen.at(-1)?.['x-device-os']).toBeTruthy();

      const refused = await without.fetch(url);
      if (!refused.ok) throw new Error(refused.message);
      const parsed = parseSubscription(refused.body);
      expect(parsed.servers).toEqual([]);
      expect(parsed.rejected[0]?.reason).toContain('"App not supported"');
    } finally {
      await withId.close();
      await without.close();
    }
  });
});
