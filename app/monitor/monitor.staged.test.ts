import { describe, expect, it } from 'vitest';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;

/** A started monitor whose first cycle will have run, so later probes are the staged test's. */
async function startedHarness() {
  const h = monitorHarness({ servers: [fakeServer('a'), fakeServer('b')] });
  await h.monitor.start();
  return h;
}

function downFlags(h: ReturnType<typeof monitorHarness>, id: string) {
  return h.updates.flatMap((u) => u.statuses.filter((s) => s.serverId === id).map((s) => `${u.at} ${s.downForNow ? 'down' : s.delayMs ?? (s.testing ? 'testing' : 'failed')}`));
}

describe('staged on-demand test (runtime, exact times)', () => {
  it('shows down for now at 1 s for an unknown server, and an answer at 1.5 s replaces it at once', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], withDirectCheck: false });
    h.prober.set('a', { answerMs: 1500 });
    // Not started: no cycle, only the staged test.
    const t = h.monitor.testStaged('a');
    await h.clock.advance(999);
    expect(h.monitor.status('a')).toMatchObject({ downForNow: false, testing: true });
    await h.clock.advance(1);
    expect(h.monitor.status('a').downForNow).toBe(true);
    await h.clock.advance(500);
    expect(await t).toMatchObject({ delayMs: 1500, downForNow: false, testing: false });
    expect(downFlags(h, 'a')).toEqual(['0 testing', '1000 down', '1500 1500']);
    expect(h.probeTimes('a')).toEqual([0]);
    // Groups (Auto) never see the transient "down" and get only the definite answer.
    expect(h.groupUpdates.flatMap((u) => u.statuses.map((s) => `${u.at} ${s.downForNow} ${s.delayMs}`))).toEqual(['1500 false 1500']);
  });

  it('retries a failed attempt at the next stage and ends as soon as the last one fails', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    h.prober.set('a', { failMs: 200, kind: 'reset', message: 'connection reset' });
    const t = h.monitor.testStaged('a');
    await h.clock.advance(200);
    expect(h.monitor.status('a').downForNow).toBe(true);
    await h.clock.advance(4 * S);
    const status = await t;
    expect(h.probeTimes('a')).toEqual([0, 1000, 3000]);
    expect(status).toMatchObject({ delayMs: null, downForNow: false, testing: false, error: { kind: 'reset', message: 'connection reset' } });
    expect(status.testedAt).toBe(h.t0 + 3200);
  });

  it('leaves an attempt in flight to answer: one ping, answered at 7 s', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    h.prober.set('a', { answerMs: 7000 });
    const t = h.monitor.testStaged('a');
    await h.clock.advance(8 * S);
    expect((await t).delayMs).toBe(7000);
    expect(h.probeTimes('a')).toEqual([0]);
  });

  it('fails at the 10 s deadline when no attempt answered', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    h.prober.set('a', { silent: true });
    const t = h.monitor.testStaged('a');
    await h.clock.advance(9999);
    expect(h.monitor.status('a').testing).toBe(true);
    await h.clock.advance(1);
    const status = await t;
    expect(status).toMatchObject({ delayMs: null, testedAt: h.t0 + 10_000, error: { kind: 'timeout' } });
    expect(h.probeTimes('a')).toEqual([0]);
  });

  it('starts a server that worked in this run at stage 2 and keeps its result instead of showing down', async () => {
    const h = await startedHarness();
    await h.clock.advance(S);
    expect(h.monitor.status('b').delayMs).toBe(100);
    h.prober.queue('b', { failMs: 2500 }, { answerMs: 900 });
    const start = h.elapsed();
    const t = h.monitor.testStaged('b');
    await h.clock.advance(2 * S);
    expect(h.monitor.status('b')).toMatchObject({ downForNow: false, delayMs: 100 });
    await h.clock.advance(2 * S);
    // First attempt failed at 2.5 s, retried at stage 2 (3 s), answered at 3.9 s.
    expect(h.probeTimes('b').filter((at) => at >= start).map((at) => at - start)).toEqual([0, 3000]);
    expect((await t).delayMs).toBe(900);
    expect(h.updates.some((u) => u.statuses.some((s) => s.serverId === 'b' && s.downForNow))).toBe(false);
  });

  it('joins a test of the same server already in flight (each server one ping at a time)', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    h.prober.set('a', { answerMs: 2000 });
    await h.monitor.start();
    await h.clock.advance(500);
    const first = h.monitor.testStaged('a');
    const second = h.monitor.testStaged('a');
    const event = h.monitor.testNow(['a'], 'user');
    await h.clock.advance(2 * S);
    expect(h.probeTimes('a')).toEqual([0]);
    expect((await first).delayMs).toBe(2000);
    expect((await second).delayMs).toBe(2000);
    expect((await event)[0]?.delayMs).toBe(2000);
    expect(h.monitor.status('a').recent).toHaveLength(1);
    expect(h.monitoringLines().some((l) => l.includes('attempt 1 at 0 s (joins the test already in flight)'))).toBe(true);
  });

  it('logs why each stage acts', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    h.prober.set('a', { failMs: 100 });
    const t = h.monitor.testStaged('a');
    await h.clock.advance(4 * S);
    await t;
    expect(h.monitoringLines()).toEqual([
      '0 staged test of server a: stages 1 s, 3 s, 10 s',
      '0 staged test of server a: attempt 1 at 0 s, deadline in 10 s',
      '100 staged test of server a: attempt failed at 0.1 s: refused: connection refused',
      '100 staged test of server a: no answer by 0.1 s: shown as down for now',
      '1000 staged test of server a: stage at 1 s reached',
      '1000 staged test of server a: attempt 2 at 1 s, deadline in 9 s',
      '1100 staged test of server a: attempt failed at 1.1 s: refused: connection refused',
      '3000 staged test of server a: stage at 3 s reached',
      '3000 staged test of server a: attempt 3 at 3 s, deadline in 7 s',
      '3100 staged test of server a: attempt failed at 3.1 s: refused: connection refused',
      '3100 test server a (staged test, 3 attempt(s)): failed (refused: connection refused)',
    ]);
  });
});
