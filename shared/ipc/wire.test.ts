import { describe, expect, it } from 'vitest';
import type { AppSnapshot, ListServer, ListStatus, ListSubscription } from './contract';
import { eventFromWire, eventToWire, resultFromWire, resultToWire, statusFromWire, statusToWire } from './wire';

const untested = (serverId: string): ListStatus => ({
  serverId,
  delayMs: null,
  testedAt: null,
  fromCache: false,
  error: null,
  testing: false,
  downForNow: false,
  notReady: null,
  ipInfo: null,
  throughputBps: null,
  throughputTest: null,
  reachability: null,
  ipv6: null,
  transfer: null,
  speedTest: null,
});

const tested: ListStatus = {
  ...untested('b'),
  delayMs: 0,
  testedAt: 1_700_000_000_000,
  fromCache: true,
  ipInfo: { ip: '198.51.100.7', countryCode: 'FI', source: 'lab', fromCache: false, at: 1 },
  throughputBps: 0,
};
const failed: ListStatus = { ...untested('c'), testedAt: 5, error: { kind: 'timeout', message: 'no answer within 5 s' } };

describe('statuses over the WebSocket', () => {
  it('carry only what differs from an untested server, and read back as they were sent', () => {
    expect(statusToWire(untested('a'))).toEqual({ serverId: 'a' });
    for (const status of [untested('a'), tested, failed]) expect(statusFromWire(JSON.parse(JSON.stringify(statusToWire(status))))).toEqual(status);
    // A zero is a result, not a default: it stays.
    expect(statusToWire(tested)).toMatchObject({ delayMs: 0, throughputBps: 0, fromCache: true });
  });

  it('make the first snapshot of 5,000 untested servers a fraction of its size, and the stream too', () => {
    const statuses = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`s${i}`, untested(`s${i}`)]));
    const snapshot = { statuses, subscriptions: [] } as never;
    const wire = JSON.stringify(resultToWire('getSnapshot', snapshot));
    expect(wire.length).toBeLessThan(JSON.stringify(snapshot).length / 5);
    expect(resultFromWire('getSnapshot', JSON.parse(wire))).toEqual(snapshot);
    expect(eventFromWire('snapshot', JSON.parse(JSON.stringify(eventToWire('snapshot', snapshot))))).toEqual(snapshot);
    const burst = [tested, failed, untested('d')];
    expect(eventFromWire('statuses', JSON.parse(JSON.stringify(eventToWire('statuses', burst))))).toEqual(burst);
  });

  it('leave every other answer and event as it is', () => {
    const progress = { running: true, done: 1, total: 2 };
    expect(eventToWire('testProgress', progress)).toBe(progress);
    expect(resultToWire('getHistory', [])).toEqual([]);
  });
});

const subscription = (id: string, servers: number, from = 0): ListSubscription =>
  ({
    id,
    name: `Provider ${id}`,
    servers: Array.from({ length: servers }, (_, i): ListServer => {
      const n = from + i;
      const server: ListServer = { id: `s${n}`, subscriptionId: id, name: `🇩🇪 Frankfurt ${n}`, protocol: n % 2 ? 'vless' : 'vmess', address: `h${n % 40}.example.net`, port: 443 };
      if (n % 100 === 5) server.via = 's0';
      return server;
    }),
  }) as unknown as ListSubscription;

const exitOf = (n: number) => ({ ip: `198.51.100.${n % 12}`, countryCode: 'DE', country: 'Germany', city: 'Frankfurt', org: 'Example GmbH', source: 'lab', fromCache: false, at: 1_700_000_000_000 });

/** What the monitor knows after a Test all: pings, exits, verdicts (one server failed, one had no status yet). */
function testedSnapshot(): AppSnapshot {
  const subscriptions = [subscription('a', 3000), subscription('b', 2000, 3000)];
  const statuses: Record<string, ListStatus> = {};
  for (const server of subscriptions.flatMap((s) => s.servers)) {
    const n = Number(server.id.slice(1));
    if (n === 42) continue;
    statuses[server.id] =
      n === 7
        ? { ...failed, serverId: server.id }
        : {
            ...untested(server.id),
            delayMs: 20 + (n % 300),
            testedAt: 1_700_000_000_000 + n * 37,
            ipInfo: exitOf(n),
            reachability: { verdict: 'ok', reason: 'answers from here', vantagePoints: [], derivedAt: 1_700_000_000_000 + n },
            ...(n % 10 === 0 ? { throughputTest: { bytes: 4_194_304, at: 1_700_000_000_000 } } : {}),
          };
  }
  statuses.gone = untested('gone'); // a server no longer listed whose status the monitor still has
  return { subscriptions, statuses, settings: { language: 'en' }, problems: [] } as unknown as AppSnapshot;
}

const overTheWire = (snapshot: AppSnapshot): { text: string; back: AppSnapshot } => {
  const text = JSON.stringify({ kind: 'result', id: 1, ok: true, value: resultToWire('getSnapshot', snapshot) });
  return { text, back: resultFromWire('getSnapshot', (JSON.parse(text) as { value: unknown }).value) as AppSnapshot };
};

describe('the snapshot over the WebSocket', () => {
  it('reads back as the engine made it: every server and status of every subscription, a missing status and an unlisted one too', () => {
    const snapshot = testedSnapshot();
    const { back } = overTheWire(snapshot);
    expect(back).toEqual(snapshot);
    expect(back.statuses.s42).toBeUndefined();
    expect(back.statuses.gone).toEqual(untested('gone'));
    expect(back.statuses.s10!.throughputTest).toEqual({ bytes: 4_194_304, at: 1_700_000_000_000 });
    expect(back.subscriptions[0]!.servers[5]!.via).toBe('s0');
    expect(Object.prototype.hasOwnProperty.call(back.subscriptions[0]!.servers[6], 'via')).toBe(false);
  });

  it('carries 5,000 servers in columns: untested in under 60 bytes a server, tested in a third of the object form', () => {
    const untestedSnapshot = { ...testedSnapshot(), statuses: {} } as AppSnapshot;
    for (const server of untestedSnapshot.subscriptions.flatMap((s) => s.servers)) untestedSnapshot.statuses[server.id] = untested(server.id);
    const bare = overTheWire(untestedSnapshot);
    expect(bare.back).toEqual(untestedSnapshot);
    expect(bare.text.length / 5000).toBeLessThan(60);
    const tested = testedSnapshot();
    const perStatus = JSON.stringify({ ...tested, statuses: Object.fromEntries(Object.entries(tested.statuses).map(([id, s]) => [id, statusToWire(s)])) });
    expect(overTheWire(tested).text.length).toBeLessThan(perStatus.length / 3);
  });

  it('still reads a snapshot in the older form, a status object per server', () => {
    const snapshot = testedSnapshot();
    const older = { ...snapshot, statuses: Object.fromEntries(Object.entries(snapshot.statuses).map(([id, s]) => [id, statusToWire(s)])) };
    expect(resultFromWire('getSnapshot', JSON.parse(JSON.stringify(older)))).toEqual(snapshot);
    expect(eventFromWire('subscriptions', snapshot.subscriptions)).toEqual(snapshot.subscriptions);
  });

  it('sends the server list of a subscriptions event in columns too, and a pushed snapshot like an answered one', () => {
    const snapshot = testedSnapshot();
    const event = JSON.stringify(eventToWire('subscriptions', snapshot.subscriptions));
    expect(event.length).toBeLessThan(JSON.stringify(snapshot.subscriptions).length / 2);
    expect(eventFromWire('subscriptions', JSON.parse(event))).toEqual(snapshot.subscriptions);
    expect(eventFromWire('snapshot', JSON.parse(JSON.stringify(eventToWire('snapshot', snapshot))))).toEqual(snapshot);
  });

  it('refuses a snapshot whose statuses do not fit its servers, rather than give them to the wrong rows', () => {
    const wire = JSON.parse(JSON.stringify(resultToWire('getSnapshot', testedSnapshot()))) as { statusColumns: { absent?: number[] } };
    wire.statusColumns.absent = [];
    expect(() => resultFromWire('getSnapshot', wire)).toThrow(/statuses for/);
  });
});
