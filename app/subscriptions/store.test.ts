import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Subscription, SubscriptionErrorKind } from '../../shared/domain/subscription';
import { memoryLogger } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import { HttpSubscriptionFetcher } from './fetch';
import { SubscriptionStore, subscriptionsFile } from './store';
import { ProviderServer } from './testing/provider-server';
import { sampleSubscriptionBody } from './testing/sample-links';

const UUID_1 = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const UUID_2 = 'ca578b3b-38d5-4ec0-b9de-9af751aa5146';
const FI = `vless://${UUID_1}@fi.example.com:443?security=tls&type=ws&path=%2Fws#${encodeURIComponent('🇫🇮 Finland')}`;
const NL = `trojan://nl-secret-password@nl.example.com:443?sni=nl.example.com#${encodeURIComponent('🇳🇱 Нидерланды')}`;
const DE = `vless://${UUID_2}@de.example.com:443?security=tls#${encodeURIComponent('🇩🇪 آلمان')}`;
const base64 = (lines: string[]) => Buffer.from(lines.join('\r\n')).toString('base64');

describe('SubscriptionStore with a real provider on 127.0.0.1', () => {
  let provider: ProviderServer;
  const fetcher = new HttpSubscriptionFetcher({ timeoutMs: 400 });

  beforeAll(async () => {
    provider = await ProviderServer.start();
  });
  afterAll(async () => {
    await fetcher.close();
    await provider.stop();
  });

  let dir: string;
  let store: SubscriptionStore;
  let log: ReturnType<typeof memoryLogger>;
  let clock: FakeClock;
  let changes: (readonly Subscription[])[];

  function newStore(): SubscriptionStore {
    const s = new SubscriptionStore({ file: subscriptionsFile(dir), fetcher, clock, logger: log.logger });
    s.onChange((list) => changes.push(list));
    return s;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'subs-'));
    log = memoryLogger();
    clock = new FakeClock();
    changes = [];
    store = newStore();
    provider.mode = {
      kind: 'ok',
      body: base64([FI, NL]),
      headers: { 'subscription-userinfo': 'upload=10; download=20; total=1000; expire=1767225600', 'profile-title': `base64:${Buffer.from('🚀 Provider').toString('base64')}` },
    };
  });

  async function added(): Promise<Subscription> {
    await store.load();
    return store.add({ url: provider.url });
  }

  it('adds a URL: fetches, parses, names it from profile-title, keeps usage, saves 0600', async () => {
    const sub = await added();
    expect(sub).toMatchObject({ name: '🚀 Provider', url: provider.url, usage: { upload: 10, download: 20, total: 1000, expire: 1767225600 }, lastError: null, pendingEmpty: false });
    expect(sub.servers.map((s) => s.name)).toEqual(['🇫🇮 Finland', '🇳🇱 Нидерланды']);
    expect(sub.updatedAt).toBe(clock.now());
    const path = join(dir, 'subscriptions.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).subscriptions[0].servers).toHaveLength(2);
    expect(changes.at(-1)?.[0]?.servers).toHaveLength(2);
  });

  it('registers every credential with the redactor, so no log line can carry one', async () => {
    await added();
    expect(log.logger.redactor.apply('pw nl-secret-password and the url ' + provider.url)).toBe('pw <secret> and the url <secret>');
    log.logger.info('TEST', `connecting with nl-secret-password as ${UUID_1}`);
    expect(log.lines.join('\n')).not.toContain('nl-secret-password');
    expect(log.lines.join('\n')).not.toContain(UUID_1);
    expect(log.lines.join('\n')).not.toContain('8f14e45fceea167a');
  });

  const badUpdates: [string, ProviderServer['mode'], RegExp, SubscriptionErrorKind][] = [
    ['garbage (an HTML page)', { kind: 'garbage' }, /^Could not update: no usable server in the provider's response \(the body is an HTML or XML page.*\)\. The previous 2 servers are kept\.$/, 'no-usable-server'],
    ['an empty response', { kind: 'empty' }, /^Could not update: the provider sent an empty response\. The previous 2 servers are kept\.$/, 'empty-response'],
    ['a hang (timeout)', { kind: 'hang' }, /^Could not update: 127\.0\.0\.1:\d+ did not finish answering within 0\.4 s\. The previous 2 servers are kept\.$/, 'timeout'],
    ['50 MB (too large)', { kind: 'huge', megabytes: 50 }, /^Could not update: the response from 127\.0\.0\.1:\d+ is larger than 10 MiB; it was not read further\. The previous 2 servers are kept\.$/, 'too-large'],
    ['an HTTP 500', { kind: 'status', status: 500 }, /^Could not update: 127\.0\.0\.1:\d+ answered HTTP 500 \(Internal Server Error\)\. The previous 2 servers are kept\.$/, 'http-status'],
    ['only broken links', { kind: 'ok', body: `vless://@x.example.com:443\nvless://${UUID_1}@y.example.com:99999` }, /no usable server in the provider's response \(vless: missing UUID; 2 entries rejected in all\)/, 'no-usable-server'],
  ];
  it.each(badUpdates)('keeps the previous list on %s, with a clear error and its kind, on disk too', async (_title, mode, message, kind) => {
    const before = await added();
    provider.mode = mode;
    await clock.advance(60_000);
    const after = await store.update(before.id);
    expect(after.lastError).toMatch(message);
    expect(after.lastErrorKind).toBe(kind);
    expect(after.servers).toEqual(before.servers);
    expect(after.updatedAt).toBe(before.updatedAt);
    const reloaded = newStore();
    expect((await reloaded.load())[0]).toMatchObject({ servers: before.servers, lastError: after.lastError, lastErrorKind: kind });
  });

  it('a 10,000-entry list parses and replaces the old one', async () => {
    const before = await added();
    provider.mode = { kind: 'ok', body: sampleSubscriptionBody(10_000) };
    const after = await store.update(before.id);
    expect(after.lastError).toBeNull();
    expect(after.servers).toHaveLength(10_000);
    expect(new Set(after.servers.map((s) => s.id)).size).toBe(10_000);
  }, 30_000);

  it('a successful update after a failed one clears the error; ids follow servers through reorder and rename', async () => {
    const before = await added();
    provider.mode = { kind: 'garbage' };
    await store.update(before.id);
    const renamedNl = NL.replace(encodeURIComponent('🇳🇱 Нидерланды'), 'NL-2');
    provider.mode = { kind: 'ok', body: base64([renamedNl, FI, DE]) };
    const after = await store.update(before.id);
    expect(after.lastError).toBeNull();
    expect(after.lastErrorKind).toBeNull();
    const id = (name: string, list: Subscription) => list.servers.find((s) => s.name.includes(name))?.id;
    expect(id('NL-2', after)).toBe(id('Нидерланды', before));
    expect(id('Finland', after)).toBe(id('Finland', before));
    expect(after.servers).toHaveLength(3);
  });

  it('keeps the provider’s announcement: the device-limit notice that comes with no servers is shown, the servers kept, and a later answer without one clears it', async () => {
    const sub = await added();
    const notice = 'Лимит устройств: 3 из 3. Удалите устройство в боте.';
    provider.mode = {
      kind: 'ok',
      body: base64([`vless://00000000-0000-0000-0000-000000000000@0.0.0.0:1#${encodeURIComponent('Device limit reached')}`]),
      headers: { announce: `base64:${Buffer.from(notice).toString('base64')}` },
    };
    const limited = await store.update(sub.id);
    expect(limited).toMatchObject({ announce: notice, lastErrorKind: 'no-usable-server' });
    expect(limited.lastError).toContain('"Device limit reached"');
    expect(limited.servers).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(dir, 'subscriptions.json'), 'utf8')).subscriptions[0].announce).toBe(notice);

    provider.mode = { kind: 'ok', body: base64([FI, NL]) };
    expect((await store.update(sub.id)).announce).toBeNull();
  });

  it('an empty list that parsed fine replaces the old one only after confirmation', async () => {
    const before = await added();
    provider.mode = { kind: 'ok', body: base64(['# no servers this month']) };
    const pending = await store.update(before.id);
    expect(pending).toMatchObject({ pendingEmpty: true, servers: before.servers });
    expect(pending.lastError).toBe('The provider now lists no servers. The previous 2 servers are kept until you confirm the empty list.');
    const confirmed = await store.confirmEmpty(before.id);
    expect(confirmed).toMatchObject({ pendingEmpty: false, servers: [], lastError: null });
    expect((await newStore().load())[0]?.servers).toEqual([]);
  });

  it('a new subscription whose first list is empty just takes it (nothing to lose)', async () => {
    provider.mode = { kind: 'ok', body: 'proxies: []\n' };
    const sub = await added();
    expect(sub).toMatchObject({ servers: [], pendingEmpty: false, lastError: null });
  });

  it('a first fetch that fails still adds the subscription, with the error', async () => {
    provider.mode = { kind: 'status', status: 403 };
    const sub = await added();
    expect(sub).toMatchObject({ name: '127.0.0.1', servers: [], lastError: expect.stringMatching(/^Could not update: .*HTTP 403 \(Forbidden\)\.$/) });
    expect(store.list()).toHaveLength(1);
  });

  describe('added only if fetched (the import box and links): nothing is stored without servers from a working fetch', () => {
    const strictly = () => store.add({ url: provider.url }, undefined, { onlyIfFetched: true });
    const CASES: [string, Parameters<typeof setMode>[0], SubscriptionErrorKind, RegExp][] = [
      ['an HTTP error', { kind: 'status', status: 403 }, 'http-status', /^Nothing was added: .*HTTP 403/],
      ['a timeout', { kind: 'hang' }, 'timeout', /^Nothing was added: /],
      ['an empty response', { kind: 'empty' }, 'empty-response', /^Nothing was added: the provider lists no servers\.$/],
      ['a list with no server', { kind: 'ok', body: 'proxies: []\n' }, 'empty-response', /^Nothing was added: the provider lists no servers\.$/],
      ['nothing usable', { kind: 'garbage' }, 'no-usable-server', /^Nothing was added: no usable server in the provider's response/],
    ];
    function setMode(mode: ProviderServer['mode']) {
      provider.mode = mode;
    }
    it.each(CASES)('%s: refused with its kind, nothing saved or announced', async (_title, mode, kind, message) => {
      await store.load();
      setMode(mode);
      await expect(strictly()).rejects.toMatchObject({ name: 'SubscriptionNotAdded', kind, message: expect.stringMatching(message) });
      expect(store.list()).toEqual([]);
      expect(changes).toEqual([]);
      expect(readdirSync(dir).filter((f) => f.startsWith('subscriptions'))).toEqual([]);
    });

    it('a working fetch adds it with its servers, name and usage at once', async () => {
      await store.load();
      const sub = await strictly();
      expect(sub).toMatchObject({ name: '🚀 Provider', lastError: null, usage: { total: 1000 } });
      expect(sub.servers.map((s) => s.name)).toEqual(['🇫🇮 Finland', '🇳🇱 Нидерланды']);
      expect(store.list()).toEqual([sub]);
      expect(changes).toHaveLength(1);
    });
  });

  it('concurrent updates of one subscription share one fetch', async () => {
    const sub = await added();
    const requestsBefore = provider.requests;
    const [a, b] = await Promise.all([store.update(sub.id), store.update(sub.id)]);
    expect(a).toBe(b);
    expect(provider.requests - requestsBefore).toBe(1);
  });

  it('adding the same URL twice returns the one subscription', async () => {
    const sub = await added();
    expect((await store.add({ url: provider.url })).id).toBe(sub.id);
    expect(store.list()).toHaveLength(1);
  });

  it('keeps the user order, reorders tolerantly, and persists it', async () => {
    const a = await added();
    const b = await store.add({ text: FI }, 'Pasted A');
    const c = await store.add({ text: [NL, DE].join('\n') }, 'Pasted B');
    expect(store.list().map((s) => s.id)).toEqual([a.id, b.id, c.id]);
    await store.reorder([c.id, 'no-such-id', a.id]);
    expect(store.list().map((s) => s.id)).toEqual([c.id, a.id, b.id]);
    expect((await newStore().load()).map((s) => s.id)).toEqual([c.id, a.id, b.id]);
    expect(await store.remove(a.id)).toBe(true);
    expect(await store.remove(a.id)).toBe(false);
    expect((await newStore().load()).map((s) => s.name)).toEqual(['Pasted B', 'Pasted A']);
  });

  it('pasted text: kept with its rejected entries; garbage is refused with the reason and adds nothing', async () => {
    await store.load();
    const pasted = await store.add({ text: `${FI}\nvless://${UUID_1}@x.example.com:70000` });
    expect(pasted).toMatchObject({ name: 'Pasted servers', rejected: [{ line: 2, reason: 'vless: port 70000 out of range (1–65535)' }] });
    expect(pasted.url).toBeUndefined();
    await expect(store.add({ text: 'hello, world' })).rejects.toThrow(/^The pasted text holds no usable server: the body is not a subscription/);
    expect(store.list()).toHaveLength(1);
    expect(await store.update(pasted.id)).toBe(store.get(pasted.id)); // nothing to fetch
  });

  it('a User-Agent set on an existing subscription is saved and sent by the next update; cleared, the app’s own is sent again', async () => {
    const sub = await added();
    const appOwn = provider.userAgents.at(-1);
    const edited = await store.setUserAgent(sub.id, '  clash-verge/v1.7.7 ');
    expect(edited.userAgent).toBe('clash-verge/v1.7.7');
    expect(edited.servers).toEqual(sub.servers);
    expect((await newStore().load())[0]!.userAgent).toBe('clash-verge/v1.7.7');
    await store.update(sub.id);
    expect(provider.userAgents.at(-1)).toBe('clash-verge/v1.7.7');

    expect((await store.setUserAgent(sub.id, null)).userAgent).toBeUndefined();
    await store.update(sub.id);
    expect(provider.userAgents.at(-1)).toBe(appOwn);
  });

  it('a User-Agent that cannot go into the header is refused with why, and the saved one is kept', async () => {
    const sub = await added();
    await store.setUserAgent(sub.id, 'Happ/3.0');
    await expect(store.setUserAgent(sub.id, 'line\nbreak')).rejects.toThrow('Not saved: the User-Agent must be printable ASCII: letters, digits, spaces and punctuation, on one line.');
    await expect(store.setUserAgent(sub.id, 'Клиент/1.0')).rejects.toThrow(/printable ASCII/);
    await expect(store.setUserAgent(sub.id, 'x'.repeat(301))).rejects.toThrow('Not saved: the User-Agent is longer than 300 characters.');
    expect(store.get(sub.id)!.userAgent).toBe('Happ/3.0');
    expect((await newStore().load())[0]!.userAgent).toBe('Happ/3.0');
    const pasted = await store.add({ text: FI }, 'Pasted');
    await expect(store.setUserAgent(pasted.id, 'Happ/3.0')).rejects.toThrow('"Pasted" was pasted, not fetched from an address: it has no User-Agent to set.');
    await expect(store.setUserAgent('nope', 'Happ/3.0')).rejects.toThrow('There is no subscription with id "nope".');
  });

  it('refuses a URL that is not http(s), and an unknown id, with a sentence', async () => {
    await expect(store.add({ url: 'file:///etc/passwd' })).rejects.toThrow('must start with http:// or https://');
    await expect(store.update('nope')).rejects.toThrow('There is no subscription with id "nope".');
  });

  it('operations before load() still load first: nothing on disk is overwritten', async () => {
    await added();
    const fresh = newStore();
    await fresh.add({ text: DE }, 'Later');
    expect(fresh.list().map((s) => s.name)).toEqual(['🚀 Provider', 'Later']);
  });

  it('a corrupt file never blocks start-up: it is set aside, the problem is said, the store works', async () => {
    writeFileSync(join(dir, 'subscriptions.json'), '{"version":1,"subscriptions":[{"id":');
    const list = await store.load();
    expect(list).toEqual([]);
    expect(store.problem?.detail).toMatch(/subscriptions\.json was unreadable \(not valid JSON\); starting empty\. It was moved to .*corrupt-/);
    expect(readdirSync(dir).some((name) => name.startsWith('subscriptions.json.corrupt-'))).toBe(true);
    expect((await store.add({ url: provider.url })).servers).toHaveLength(2);
  });

  it('a failure kind it does not know (a newer version wrote it) is dropped, the file is not set aside', async () => {
    const sub = await added();
    const path = join(dir, 'subscriptions.json');
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    doc.subscriptions[0].lastError = 'Could not update: something new.';
    doc.subscriptions[0].lastErrorKind = 'quantum-interference';
    writeFileSync(path, JSON.stringify(doc));
    const reloaded = newStore();
    const [loaded] = await reloaded.load();
    expect(reloaded.problem).toBeNull();
    expect(loaded).toMatchObject({ id: sub.id, servers: sub.servers, lastError: 'Could not update: something new.' });
    expect(loaded?.lastErrorKind ?? null).toBeNull();
  });

  it('a corrupt file falls back to the last good copy', async () => {
    const first = await added();
    provider.mode = { kind: 'ok', body: base64([FI, NL, DE]) };
    await store.update(first.id); // the first good file becomes the backup
    writeFileSync(join(dir, 'subscriptions.json'), 'garbage');
    const reloaded = newStore();
    const list = await reloaded.load();
    expect(list[0]?.servers).toHaveLength(2);
    expect(reloaded.problem?.detail).toMatch(/the last good copy was used/);
  });
});
