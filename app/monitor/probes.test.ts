import { describe, expect, it } from 'vitest';
import type { TransferTest } from '../../shared/domain/transfer';
import { monitorSettingsSchema } from '../../shared/settings';
import { FakeClock } from '../testing/fake-clock';
import { Flights } from './flights';
import { AutoProbes } from './probes';
import { ServerRecords } from './records';
import { ServerDirectory } from './servers';
import { NetworkSettling } from './settle';
import { TestUrls } from './test-urls';
import { FakeProber } from './testing/fake-prober';
import { fakeServer } from './testing/harness';

function probes(transferTestBytes = 0) {
  const clock = new FakeClock();
  const t0 = clock.now();
  const prober = new FakeProber(clock);
  const servers = new ServerDirectory(() => [fakeServer('a'), fakeServer('b')], new ServerRecords());
  const settings = monitorSettingsSchema.parse({ transferTestBytes });
  const flights = new Flights({ prober, clock, servers, settling: new NetworkSettling(clock) });
  const transfersAsked: string[] = [];
  const verdict: TransferTest = { verdict: 'freezes', at: 0, bytes: 16_384, expectedBytes: 65_536, bytesPerSecond: null, fragment: false, detail: 'stalled', fromCache: false };
  const target = new AutoProbes(clock, () => settings, servers, new TestUrls(() => settings), flights, {
    testNow: async (id) => {
      transfersAsked.push(id);
      return verdict;
    },
  });
  return { clock, t0, prober, flights, target, transfersAsked };
}

describe("Auto's and reachability's probes", () => {
  it('runs its own test with the caller\'s deadline when none is in flight', async () => {
    const { clock, t0, prober, target } = probes();
    prober.set('a', { answerMs: 120 }).set('b', { silent: true });
    const a = target.probe('a', 2000);
    const b = target.probe('b', 2000);
    await clock.advance(2000);
    expect(await a).toEqual({ delayMs: 120, at: t0 + 120 });
    expect(await b).toEqual({ delayMs: null, error: 'timeout', at: t0 + 2000 });
    expect(prober.probesOf('a').map((c) => c.timeoutMs)).toEqual([2000]);
  });

  it('joins a test in flight and gives up on it at its own, shorter deadline', async () => {
    const { clock, t0, prober, flights, target } = probes();
    prober.set('a', { answerMs: 3000 });
    void flights.probe('a', 'http://cycle.example/', 5000).promise;
    await clock.advance(100);
    const joined = target.probe('a', 1000);
    await clock.advance(1000);
    expect(await joined).toEqual({ delayMs: null, error: 'timeout', at: t0 + 1100 });
    expect(prober.probesOf('a')).toHaveLength(1);
  });

  it('joins a test in flight and takes its answer when it comes in time', async () => {
    const { clock, t0, prober, flights, target } = probes();
    prober.set('a', { answerMs: 700 });
    void flights.probe('a', 'http://cycle.example/', 5000).promise;
    await clock.advance(100);
    const joined = target.probe('a', 1000);
    await clock.advance(1000);
    expect(await joined).toEqual({ delayMs: 700, at: t0 + 700 });
    expect(prober.probesOf('a')).toHaveLength(1);
  });

  it('makes no transfer test while they are off, nor of a server not in the list', async () => {
    const off = probes(0);
    expect(await off.target.transferTest('a')).toBeNull();
    const on = probes(65_536);
    expect(await on.target.transferTest('gone')).toBeNull();
    expect(await on.target.transferTest('a')).toBe('freezes');
    expect([...off.transfersAsked, ...on.transfersAsked]).toEqual(['a']);
  });
});
