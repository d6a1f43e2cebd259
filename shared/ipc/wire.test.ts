import { describe, expect, it } from 'vitest';
import type { ListStatus } from './contract';
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
