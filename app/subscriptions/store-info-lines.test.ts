import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import { HttpSubscriptionFetcher } from './fetch';
import { SubscriptionStore, subscriptionsFile } from './store';
import { ProviderServer } from './testing/provider-server';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const FI = `vless://${UUID}@fi.example.com:443?security=tls&type=ws&path=%2Fws#${encodeURIComponent('🇫🇮 Finland')}`;
const NL = `trojan://nl-secret-password@nl.example.com:443?sni=nl.example.com#${encodeURIComponent('🇳🇱 Нидерланды')}`;
const GiB = 1024 ** 3;
const noon = (date: string) => Date.parse(`${date}T12:00:00Z`) / 1000;
/** A body as V2Board / Xboard serve Shadowrocket: the info lines first, all of it base64. */
const shadowrocketBody = (...lines: string[]) => Buffer.from([...lines, FI, NL].join('\r\n')).toString('base64');
const STATUS = 'STATUS=🚀↑:1.5GB,↓:30GB,TOT:100GB💡Expires:2026-01-01';
const BODY_USAGE = { upload: 1.5 * GiB, download: 30 * GiB, total: 100 * GiB, expire: noon('2026-01-01') };

describe('SubscriptionStore: usage and name from the body’s STATUS / REMARKS lines (a provider on 127.0.0.1)', () => {
  let provider: ProviderServer;
  const fetcher = new HttpSubscriptionFetcher({ timeoutMs: 400 });
  let dir: string;
  let store: SubscriptionStore;

  beforeAll(async () => {
    provider = await ProviderServer.start();
  });
  afterAll(async () => {
    await fetcher.close();
    await provider.stop();
  });
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'subs-info-'));
    store = new SubscriptionStore({ file: subscriptionsFile(dir), fetcher, clock: new FakeClock(), logger: memoryLogger().logger });
    await store.load();
  });

  const saved = () => JSON.parse(readFileSync(join(dir, 'subscriptions.json'), 'utf8')).subscriptions[0];

  it('without a subscription-userinfo header, the STATUS line’s usage is stored and REMARKS names it; no entry is reported', async () => {
    provider.mode = { kind: 'ok', body: shadowrocketBody(STATUS, 'REMARKS=My Provider') };
    const sub = await store.add({ url: provider.url });
    expect(sub).toMatchObject({ name: 'My Provider', usage: BODY_USAGE, rejected: [], lastError: null });
    expect(sub.servers.map((s) => s.name)).toEqual(['🇫🇮 Finland', '🇳🇱 Нидерланды']);
    expect(saved()).toMatchObject({ name: 'My Provider', usage: BODY_USAGE });
  });

  it('the headers win: subscription-userinfo over STATUS, profile-title over REMARKS', async () => {
    provider.mode = {
      kind: 'ok',
      body: shadowrocketBody(STATUS, 'REMARKS=My Provider'),
      headers: { 'subscription-userinfo': 'upload=10; download=20; total=1000; expire=1767225600', 'profile-title': 'Header Title' },
    };
    const sub = await store.add({ url: provider.url });
    expect(sub).toMatchObject({ name: 'Header Title', usage: { upload: 10, download: 20, total: 1000, expire: 1767225600 } });
    expect(saved().usage).toEqual({ upload: 10, download: 20, total: 1000, expire: 1767225600 });
  });

  it('a name the user gave is kept, whatever REMARKS says', async () => {
    provider.mode = { kind: 'ok', body: shadowrocketBody(STATUS, 'REMARKS=My Provider') };
    const sub = await store.add({ url: provider.url }, 'Work VPN');
    expect(sub).toMatchObject({ name: 'Work VPN', usage: BODY_USAGE });
  });

  it('on update the new STATUS figures replace the old ones; the name stays as it is', async () => {
    provider.mode = { kind: 'ok', body: shadowrocketBody(STATUS, 'REMARKS=My Provider') };
    const added = await store.add({ url: provider.url });
    provider.mode = { kind: 'ok', body: shadowrocketBody('STATUS=🚀↑:2GB,↓:40GB,TOT:100GB💡Expires:N/A', 'REMARKS=Renamed Upstream') };
    const updated = await store.update(added.id);
    expect(updated).toMatchObject({ name: 'My Provider', usage: { upload: 2 * GiB, download: 40 * GiB, total: 100 * GiB } });
    expect(saved().usage).toEqual({ upload: 2 * GiB, download: 40 * GiB, total: 100 * GiB });
  });

  it('an update whose body and headers say nothing of usage keeps the last known figures', async () => {
    provider.mode = { kind: 'ok', body: shadowrocketBody(STATUS) };
    const added = await store.add({ url: provider.url });
    provider.mode = { kind: 'ok', body: shadowrocketBody() };
    expect((await store.update(added.id)).usage).toEqual(BODY_USAGE);
  });

  it('pasted text: REMARKS is the default name and STATUS the usage', async () => {
    const sub = await store.add({ text: ['REMARKS=Friend’s servers', STATUS, FI].join('\n') });
    expect(sub).toMatchObject({ name: 'Friend’s servers', usage: BODY_USAGE, rejected: [] });
  });
});
