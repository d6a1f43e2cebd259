import { describe, expect, it } from 'vitest';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;

describe('no false timeouts in batch tests', () => {
  it('probes servers behind one front address at most 2 at a time', async () => {
    const shared = Array.from({ length: 6 }, (_, i) => fakeServer(`cdn${i}`, { address: i % 2 ? 'CDN.example.test' : 'cdn.example.test' }));
    const own = Array.from({ length: 4 }, (_, i) => fakeServer(`own${i}`));
    const h = monitorHarness({ servers: [...shared, ...own], settings: { workers: 10 } });
    for (const s of [...shared, ...own]) h.prober.set(s.id, { answerMs: 1000 });
    h.prober.maxInFlightByFront.clear();
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(h.prober.probeCount()).toBe(10);
    // The prober sees the raw spelling; both spellings are one front.
    const toFront = (h.prober.maxInFlightByFront.get('cdn.example.test') ?? 0) + (h.prober.maxInFlightByFront.get('CDN.example.test') ?? 0);
    expect(toFront).toBeLessThanOrEqual(2);
    expect(shared.map((s) => h.probeTimes(s.id)[0])).toEqual([0, 0, 1000, 1000, 2000, 2000]);
    expect(own.map((s) => h.probeTimes(s.id)[0])).toEqual([0, 0, 0, 0]);
  });

  it('confirms a failure from a busy batch once more, alone, before it counts; both figures are exported', async () => {
    const servers = Array.from({ length: 10 }, (_, i) => fakeServer(`s${i}`));
    const h = monitorHarness({ servers, settings: { workers: 10 } });
    for (const s of servers) h.prober.set(s.id, { answerMs: 500 });
    h.prober.queue('s3', { silent: true });
    h.prober.set('s7', { failMs: 300, kind: 'refused' });
    await h.monitor.start();
    await h.clock.advance(6 * S);
    // The batch ends at 5 s (s3's timeout); the confirmations run one after the other.
    expect(h.probeTimes('s7')).toEqual([0, 5000]);
    expect(h.probeTimes('s3')).toEqual([0, 5300]);
    expect(h.monitor.status('s3')).toMatchObject({ delayMs: 500, error: null });
    expect(h.monitor.status('s7')).toMatchObject({ delayMs: null, error: { kind: 'refused' } });
    expect(h.monitor.exportObservation().batch).toEqual({ confirmedFailures: 1, overturnedFailures: 1 });
  });

  it('counts a failure at once when the batch was not busy', async () => {
    const h = monitorHarness({ servers: [fakeServer('a'), fakeServer('b')], settings: { workers: 10 } });
    h.prober.set('b', { failMs: 200 });
    await h.monitor.start();
    await h.clock.advance(S);
    expect(h.probeTimes('b')).toEqual([0]);
    expect(h.monitor.status('b').error?.kind).toBe('refused');
    expect(h.monitor.exportObservation().batch).toEqual({ confirmedFailures: 0, overturnedFailures: 0 });
  });

  it('discards a cycle\'s failures when every test failed and a direct request fails too (the network is down)', async () => {
    const h = monitorHarness();
    for (const id of ['a', 'b', 'c']) h.prober.set(id, { silent: true });
    h.directCheck.up = false;
    await h.monitor.start();
    await h.clock.advance(6 * S);
    expect(h.directCheck.calls).toBe(1);
    expect(h.monitor.snapshot().map((s) => [s.delayMs, s.error, s.testedAt, s.recent.length])).toEqual([
      [null, null, null, 0],
      [null, null, null, 0],
      [null, null, null, 0],
    ]);
    expect(h.monitoringLines().some((l) => l.includes('the network is down, 3 result(s) discarded'))).toBe(true);
    expect(h.monitoringLines().some((l) => l.includes('left for the next cycle'))).toBe(false);
  });

  it("checks the network when a failure comes, not when the cycle ends: a network back by the cycle's end does not make the outage's failures count", async () => {
    const servers = ['a', 'b', 'c', 'd'].map((id) => fakeServer(id));
    const h = monitorHarness({ servers, settings: { workers: 2, urlTestTimeoutMs: 2000 } });
    for (const s of servers) h.prober.set(s.id, { silent: true });
    h.directCheck.up = false;
    await h.monitor.start();
    // a and b time out at 2 s while the network is down; it is back before c and d would have.
    await h.clock.advance(2 * S + 10);
    h.directCheck.up = true;
    await h.clock.advance(5 * S);
    expect(h.monitor.snapshot().map((s) => [s.serverId, s.error, s.recent.length])).toEqual([
      ['a', null, 0],
      ['b', null, 0],
      ['c', null, 0],
      ['d', null, 0],
    ]);
    // The lost network stopped the cycle: c and d were not probed for nothing; the next cycle tests them.
    expect(['c', 'd'].map((id) => h.probeTimes(id))).toEqual([[], []]);
    expect(h.monitoringLines().some((l) => l.includes('the network is down, 2 result(s) discarded; 2 server(s) left for the next cycle'))).toBe(true);
  });

  it('records the failures when every test failed but the network is up', async () => {
    const h = monitorHarness();
    for (const id of ['a', 'b', 'c']) h.prober.set(id, { silent: true });
    await h.monitor.start();
    await h.clock.advance(6 * S);
    expect(h.directCheck.calls).toBe(1);
    expect(h.monitor.snapshot().map((s) => s.error?.kind)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('does not count the failures of a network lost in the middle of a cycle (one direct check for the burst)', async () => {
    const h = monitorHarness();
    h.prober.set('a', { answerMs: 100 });
    h.prober.set('b', { silent: true });
    h.prober.set('c', { silent: true });
    h.directCheck.up = false;
    await h.monitor.start();
    await h.clock.advance(6 * S);
    expect(h.monitor.status('a')).toMatchObject({ delayMs: 100 });
    expect(['b', 'c'].map((id) => [h.monitor.status(id).error, h.monitor.status(id).recent.length])).toEqual([
      [null, 0],
      [null, 0],
    ]);
    expect(h.directCheck.calls).toBe(1);
    expect(h.monitoringLines().some((l) => l.includes('2 failure(s) not counted: the network was down'))).toBe(true);
  });

  it('counts a failure after a success when the direct request answers', async () => {
    const h = monitorHarness();
    h.prober.set('a', { answerMs: 100 });
    h.prober.set('b', { silent: true });
    await h.monitor.start();
    await h.clock.advance(6 * S);
    expect(h.monitor.status('b').error?.kind).toBe('timeout');
  });
});
