/**
 * The current server is watched for freezing (issue 29): while the connection is in use its
 * transfer test runs as the connection starts, on suspicion (traffic that looks frozen, read from
 * the core's byte counters), and at least every 60 s (every 5 minutes at most while the use is
 * light); an idle connection is never tested.
 */
import { describe, expect, it } from 'vitest';
import type { TrafficSample } from '../../../shared/domain/connection';
import { suspicion, NO_SUSPICION, observeForSuspicion, type SuspicionShape } from '../policy/suspicion';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';

const KB = 1024;
const sample = (atMs: number, upBytes: number, downBytes: number, intervalMs = 250): TrafficSample => ({ at: T0 + atMs, intervalMs, upBytes, downBytes });

/** 250 ms samples from `fromMs` for `durationMs`, each made by `bytes(i)`. */
function samples(fromMs: number, durationMs: number, bytes: (i: number) => [up: number, down: number]): TrafficSample[] {
  return Array.from({ length: durationMs / 250 }, (_, i) => sample(fromMs + (i + 1) * 250, ...bytes(i)));
}

describe('suspicion, from the core’s byte counters', () => {
  const frozen40kbEachSecond = (i: number): [number, number] => (i % 4 === 0 ? [300, 16 * KB] : [0, 0]);
  const healthy40kbEachSecond = (i: number): [number, number] => (i % 4 === 0 ? [300, 40 * KB] : [0, 0]);
  const browsingFrozen = (i: number): [number, number] => [600, i % 2 === 0 ? 10 * KB : 0];
  const streaming = (): [number, number] => [200, 120 * KB];
  const bulkThenTrickle = (i: number): [number, number] => (i < 16 ? [200, 100 * KB] : [200, i % 4 === 0 ? 2 * KB : 0]);
  const bulkThenSilent = (i: number): [number, number] => (i < 16 ? [200, 100 * KB] : [200, 0]);
  const bulkThenDone = (i: number): [number, number] => (i < 16 ? [200, 100 * KB] : [0, i === 17 ? 2 * KB : 0]);
  const idle = (): [number, number] => [0, 0];

  it.each([
    // case, 6 s of traffic, the shape seen at the end
    ['a 40 KB download each second that gets 16 KB of each', frozen40kbEachSecond, 'capped-downstream'],
    ['a browser whose connections keep sending and get a few KB each', browsingFrozen, 'capped-downstream'],
    ['a download flowing, then a trickle while the user still asks', bulkThenTrickle, 'collapse'],
    ['a 40 KB download each second that completes', healthy40kbEachSecond, null],
    ['a stream flowing', streaming, null],
    ['a download flowing, then silence (the stall trigger’s)', bulkThenSilent, null],
    ['a download that finished (nothing more is sent)', bulkThenDone, null],
    ['nothing at all', idle, null],
  ] as const)('%s → %s', (_case, bytes, expected: SuspicionShape | null) => {
    const tracker = samples(0, 6000, bytes).reduce(observeForSuspicion, NO_SUSPICION);
    expect(suspicion(tracker, T0 + 6000)).toBe(expected);
  });

  it('forgets what is older than 6 s', () => {
    const tracker = [...samples(0, 4000, frozen40kbEachSecond), ...samples(4000, 8000, () => [0, 0])].reduce(observeForSuspicion, NO_SUSPICION);
    expect(tracker.intervals.every((i) => i.at > T0 + 6000)).toBe(true);
    expect(suspicion(tracker, T0 + 12_000)).toBeNull();
  });
});

describe('the watch: the current server’s transfer test while the connection is in use', () => {
  function harness() {
    const run = runReducer({ subscriptions: [{ id: 'A', serverIds: ['a1', 'a2'] }], measurements: { a1: delays([60, 61, 62], { now: T0 }), a2: delays([20, 21, 22], { now: T0 }) } });
    run.send({ type: 'tunnel-connected', serverId: 'a1' }, 0);
    const tests = () => run.commands.flatMap((c) => (c.kind === 'transfer-test' ? [`${c.serverId} ${c.reason}`] : []));
    const traffic = (list: TrafficSample[]) => list.forEach((s) => run.send({ type: 'traffic', sample: s }, s.at - T0));
    const ended = (atMs: number, verdict: 'ok' | 'freezes' | null = 'ok') => {
      if (verdict) run.send({ type: 'transfer-seen', serverId: 'a1', result: { verdict, at: T0 + atMs, bytes: 65_536, fromCache: false } }, atMs);
      run.send({ type: 'watch-ended', serverId: 'a1' }, atMs);
    };
    return { run, tests, traffic, ended };
  }
  const flowing = (): [number, number] => [300, 60 * KB];

  it('runs as soon as traffic passes through a new connection, one at a time, and not while idle', () => {
    const h = harness();
    h.traffic(samples(0, 2000, () => [0, 0]));
    expect(h.tests()).toEqual([]);
    h.traffic(samples(2000, 2000, flowing));
    expect(h.tests()).toEqual(['a1 connected']);
    h.ended(4500);
    h.traffic(samples(4000, 10_000, flowing));
    expect(h.tests()).toEqual(['a1 connected']);
  });

  // 120 KB/s that neither looks frozen nor proves anything (480 KB in 4 s, 100 times what it sends).
  const steady = (): [number, number] => [300, 30 * KB];

  it('repeats at least every 60 s while in use, from the last result (the monitor’s count too), and waits for traffic', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1500);
    // The runtime's one timer is asked to wake Auto when the next test falls due: while nothing
    // more comes (light use) the watch's is 5 minutes away, after trigger 4's scheduled check at
    // 5 min; 60 s after the result once the use is more than light.
    expect(h.run.state.wakeAt).toBe(T0 + 300_000);
    h.traffic(samples(1000, 1000, steady));
    expect(h.run.state.wakeAt).toBe(T0 + 61_500);
    // The monitor's own test at 30 s moves the next one to 90 s.
    h.run.send({ type: 'transfer-seen', serverId: 'a1', result: { verdict: 'ok', at: T0 + 30_000, bytes: 65_536, fromCache: false } }, 30_000);
    h.traffic(samples(30_000, 59_000, steady));
    expect(h.tests()).toEqual(['a1 connected']);
    h.traffic(samples(89_000, 1500, steady));
    expect(h.tests()).toEqual(['a1 connected', 'a1 periodic']);
    h.ended(92_000);
    // Idle from then on: no test however long.
    h.run.send({ type: 'wake' }, 152_000);
    h.traffic(samples(152_000, 5000, () => [0, 0]));
    expect(h.tests()).toHaveLength(2);
  });

  it('light use waits until it has received what the test downloads (64 KB), at most 5 minutes: the test never costs more than the traffic it guards', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1500);
    // A chat: 3 KB each 10 s (18 KB a minute), in use all along: its 22nd message since the
    // result, at 211 s, brings it past 64 KB. Tested then, not at 61.5 s.
    const chat = (i: number): [number, number] => (i % 40 === 0 ? [600, 3 * KB] : [0, 0]);
    h.traffic(samples(1000, 210_000, chat));
    expect(h.tests()).toEqual(['a1 connected']);
    h.traffic(samples(211_000, 1000, chat));
    expect(h.tests()).toEqual(['a1 connected', 'a1 periodic']);
    h.ended(212_000);
    // Fewer bytes still (1 KB each 10 s): due at 5 minutes whatever came.
    const trickle = (i: number): [number, number] => (i % 40 === 0 ? [300, KB] : [0, 0]);
    h.traffic(samples(212_000, 88_000, trickle));
    // Trigger 4's scheduled check at 5 min meanwhile: the current server answers, Auto stays.
    const checkId = h.run.lastProbeCheckId();
    h.run.send({ type: 'probe-result', checkId, serverId: 'a1', delayMs: 61 }, 300_100);
    h.run.send({ type: 'probe-result', checkId, serverId: 'a2', delayMs: 21 }, 300_100);
    expect(h.run.state).toMatchObject({ current: 'a1', check: null });
    h.traffic(samples(300_000, 211_000, trickle));
    expect(h.tests()).toHaveLength(2);
    h.traffic(samples(511_000, 11_000, trickle));
    expect(h.tests()).toEqual(['a1 connected', 'a1 periodic', 'a1 periodic']);
    h.ended(522_000);
    // Browsing that receives 80 KB in a minute: tested a minute after the result, as before.
    const browsing = (i: number): [number, number] => (i % 40 === 0 ? [600, 8 * KB] : [0, 0]);
    h.traffic(samples(522_000, 59_000, browsing));
    expect(h.tests()).toHaveLength(3);
    h.traffic(samples(581_000, 11_000, browsing));
    expect(h.tests()).toHaveLength(4);
  });

  it('on suspicion, once the last result is 20 s old; a freeze it finds starts a freeze check', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1500);
    const frozen = (i: number): [number, number] => (i % 4 === 0 ? [300, 16 * KB] : [0, 0]);
    h.traffic(samples(1000, 15_000, frozen));
    expect(h.tests()).toEqual(['a1 connected']);
    h.traffic(samples(16_000, 6000, frozen));
    expect(h.tests()).toEqual(['a1 connected', 'a1 suspicion']);
    h.ended(23_500, 'freezes');
    expect(h.run.decisions().filter((d) => d.type === 'check')).toMatchObject([{ trigger: 'freeze', transfer: { server: 'a1', verdict: 'freezes' } }]);
  });

  it('a test that brought no result is not retried before the next is due', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1200, null);
    h.traffic(samples(1000, 10_000, flowing));
    expect(h.tests()).toEqual(['a1 connected']);
  });

  it('starts over on the server Auto switches to', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1500);
    h.run.send({ type: 'check-now' }, 2000);
    const checkId = h.run.lastProbeCheckId();
    h.run.send({ type: 'probe-result', checkId, serverId: 'a1', delayMs: null }, 2100);
    h.run.send({ type: 'probe-result', checkId, serverId: 'a2', delayMs: 21 }, 2100);
    expect(h.run.state.current).toBe('a2');
    h.traffic(samples(3000, 1000, flowing));
    expect(h.tests()).toEqual(['a1 connected', 'a2 connected']);
  });

  it('a stream that proves the server carries connections past the freeze threshold stands in for the periodic test, from the last proof', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1500);
    // 150 s of a stream (240 KB/s, 200 times what it sends): no periodic test at all (all of it
    // before the scheduled check of trigger 4 at 5 min).
    h.traffic(samples(1000, 150_000, flowing));
    expect(h.tests()).toEqual(['a1 connected']);
    // (trigger 4's scheduled check at 5 min comes before the watch's, 5 min after the proof while nothing more comes)
    expect(h.run.state.wakeAt).toBe(T0 + 300_000);
    // Then traffic that proves nothing: the test comes 60 s after the last proof, not at once.
    h.traffic(samples(151_000, 59_500, steady));
    expect(h.tests()).toEqual(['a1 connected']);
    h.traffic(samples(210_500, 1000, steady));
    expect(h.tests()).toEqual(['a1 connected', 'a1 periodic']);
  });

  it('a proof never stands in for the test on suspicion: a stream that collapses to a trickle is tested', () => {
    const h = harness();
    h.traffic(samples(0, 1000, flowing));
    h.ended(1500);
    h.traffic(samples(1000, 30_000, flowing));
    // The last 4 s still hold 2 s of the stream (a proof by itself), and the rate fell to a trickle while the user asks.
    h.traffic(samples(31_000, 2000, () => [200, 1 * KB]));
    expect(h.tests()).toEqual(['a1 connected', 'a1 suspicion']);
  });

  it('a proof before the connection’s first test does not stand in for it', () => {
    const h = harness();
    h.traffic(samples(0, 8000, flowing));
    expect(h.tests()).toEqual(['a1 connected']);
  });
});
