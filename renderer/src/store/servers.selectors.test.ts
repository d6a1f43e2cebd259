import { describe, expect, it } from 'vitest';
import { ipInfo, sampleSnapshot, status } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { countryOf, ipInfoDetails, pingClass, selectListRows, selectServerRow, usageOf } from './servers.selectors';

const NOW = 1_000_000;

describe('pingClass', () => {
  it.each([
    [0, 'good'],
    [63, 'good'],
    [149, 'good'],
    [150, 'fair'],
    [399, 'fair'],
    [400, 'poor'],
    [2549, 'poor'],
    [null, 'none'],
    [undefined, 'none'],
    [Number.NaN, 'none'],
  ])('%s ms is %s', (delay, expected) => {
    expect(pingClass(delay as number | null | undefined)).toBe(expected);
  });
});

describe('countryOf', () => {
  it('names the exit country in the UI language and keeps the ISO code', () => {
    expect(countryOf(ipInfo('1.2.3.4', 'FI'), 'en')).toEqual({ code: 'FI', name: 'Finland' });
    expect(countryOf(ipInfo('1.2.3.4', 'FI'), 'ru')).toEqual({ code: 'FI', name: 'Финляндия' });
    expect(countryOf(ipInfo('1.2.3.4', 'fi'), 'fa')?.code).toBe('FI');
  });

  it('has no country without a usable code', () => {
    expect(countryOf(null, 'en')).toBeNull();
    expect(countryOf(ipInfo('1.2.3.4', ''), 'en')).toBeNull();
    expect(countryOf(ipInfo('1.2.3.4', 'Finland'), 'en')).toBeNull();
  });

  it('puts city, region, ASN and provider in the tooltip', () => {
    expect(ipInfoDetails(ipInfo('1.2.3.4', 'FI', { city: 'Helsinki', region: 'Uusimaa', asn: 'AS24940', org: 'Hetzner' }))).toBe(
      'Helsinki, Uusimaa · AS24940 Hetzner',
    );
    expect(ipInfoDetails(null)).toBe('');
  });
});

describe('selectListRows', () => {
  it('groups servers under their subscription, in list order', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    const rows = selectListRows(store.getState());
    expect(rows.map((r) => (r.kind === 'subscription' ? `[${r.subscriptionId}]` : r.kind === 'server' ? r.serverId : r.kind))).toEqual([
      '[A]', 'fi', 'nl', 'de', 'ir', 'us', 'jp', '[B]', 'b1', 'b2', 'b3',
    ]);
    await store.getState().moveSubscription('B', -1);
    expect(selectListRows(store.getState())[0]).toMatchObject({ kind: 'subscription', subscriptionId: 'B' });
  });

  it('filters by name, country code or exit IP and says when a group has no match', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    store.getState().setFilter('se');
    const ids = selectListRows(store.getState()).flatMap((r) => (r.kind === 'server' ? [r.serverId] : []));
    expect(ids).toEqual(['b1']); // SE = Sweden, B1's exit country
    store.getState().setFilter('185.220');
    const rows = selectListRows(store.getState());
    expect(rows.filter((r) => r.kind === 'server').map((r) => r.kind === 'server' && r.serverId)).toEqual(['fi']);
    expect(rows).toContainEqual(expect.objectContaining({ kind: 'empty', subscriptionId: 'B', reason: 'no-match' }));
    expect(rows[0]).toMatchObject({ kind: 'subscription', matched: 1 });
  });

  it('sorts by ping when asked: answered fastest first, then untested, then failed; ties keep list order', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    store.getState().setSort('ping');
    const a = selectListRows(store.getState()).flatMap((r) => (r.kind === 'server' && r.subscriptionId === 'A' ? [r.serverId] : []));
    expect(a).toEqual(['fi', 'nl', 'jp', 'ir', 'us', 'de']);
  });

  it('hides the servers of a collapsed subscription but keeps its header', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    store.getState().toggleCollapsed('A');
    const rows = selectListRows(store.getState());
    expect(rows[0]).toMatchObject({ kind: 'subscription', subscriptionId: 'A' });
    expect(rows[1]).toMatchObject({ kind: 'subscription', subscriptionId: 'B' });
  });

  it('says a subscription has no servers', async () => {
    const snapshot = sampleSnapshot(NOW);
    snapshot.subscriptions[1] = { ...snapshot.subscriptions[1]!, servers: [] };
    const { store } = await storeWith(snapshot);
    expect(selectListRows(store.getState()).at(-1)).toMatchObject({ kind: 'empty', reason: 'no-servers' });
  });

  it('returns the same rows for a burst of ping updates (no list rebuild), a new list when the order needs them', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    const before = selectListRows(store.getState());
    client.emit('statuses', [status('fi', { delayMs: 999 })]);
    frames.next();
    expect(selectListRows(store.getState())).toBe(before);
    store.getState().setSort('ping');
    const sorted = selectListRows(store.getState());
    client.emit('statuses', [status('fi', { delayMs: 998 })]);
    frames.next();
    expect(selectListRows(store.getState())).not.toBe(sorted);
  });
});

describe('selectServerRow', () => {
  it('marks the current server, the excluded ones and the unsupported ones', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    const state = store.getState();
    expect(selectServerRow(state, 'fi', 'A')).toMatchObject({ isCurrent: true, connectionState: 'connected', isExcluded: false, autoOn: true });
    expect(selectServerRow(state, 'ir', 'A')).toMatchObject({ isCurrent: false, isExcluded: true });
    expect(selectServerRow(state, 'b3', 'B')).toMatchObject({ unsupported: 'hysteria2 needs Xray or sing-box', autoOn: false });
  });

  it('keeps every field identical when nothing about the row changed', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    const first = selectServerRow(store.getState(), 'nl', 'A');
    client.emit('statuses', [status('fi', { delayMs: 10 })]);
    frames.next();
    expect(store.getState().statuses.fi?.delayMs).toBe(10);
    const second = selectServerRow(store.getState(), 'nl', 'A');
    for (const key of Object.keys(first) as (keyof typeof first)[]) expect(second[key]).toBe(first[key]);
  });
});

describe('usageOf', () => {
  it('adds upload and download, gives the fill and the expiry in ms', () => {
    const [a] = sampleSnapshot(NOW).subscriptions;
    expect(usageOf(a!)).toEqual({ used: 33.5e9, total: 100e9, fraction: 0.335, expire: Math.round((NOW + 23 * 86_400_000) / 1000) * 1000 });
  });

  it('has no fill without a total and nothing without usage', () => {
    const [a] = sampleSnapshot(NOW).subscriptions;
    expect(usageOf({ ...a!, usage: { download: 5 } })).toEqual({ used: 5, total: null, fraction: null, expire: null });
    expect(usageOf({ ...a!, usage: null })).toBeNull();
  });
});
