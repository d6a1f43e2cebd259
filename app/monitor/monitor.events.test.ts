import { describe, expect, it } from 'vitest';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;

describe('event-triggered tests, joining, publishing', () => {
  it('runs an event test at once beside a cycle whose workers are all held, and publishes it without debounce', async () => {
    const h = monitorHarness({ servers: [fakeServer('h1'), fakeServer('h2'), fakeServer('member')], settings: { workers: 2 } });
    h.prober.set('h1', { silent: true }).set('h2', { silent: true }).set('member', { answerMs: 100 });
    await h.monitor.start();
    await h.clock.advance(S);
    expect(h.probeTimes('member')).toEqual([]);
    const test = h.monitor.testNow(['member'], 'member-failed');
    await h.clock.advance(100);
    expect((await test)[0]?.delayMs).toBe(100);
    expect(h.probeTimes('member')).toEqual([S]);
    const published = h.updates.find((u) => u.statuses.some((s) => s.serverId === 'member' && s.delayMs === 100));
    expect(published?.at).toBe(1100);
    expect(h.groupUpdates.find((u) => u.statuses.some((s) => s.serverId === 'member'))?.at).toBe(1100);
    expect(h.monitoringLines()).toContain('1100 test server member (event: member-failed): 100 ms');
  });

  it('gives subscribers one update per burst of cycle results, after debounce_window', async () => {
    const h = monitorHarness({ behaviours: { a: { answerMs: 100 }, b: { answerMs: 150 }, c: { answerMs: 300 } } });
    await h.monitor.start();
    await h.clock.advance(2 * S);
    const delays = h.updates.map((u) => `${u.at}: ${u.statuses.map((s) => `${s.serverId}=${s.delayMs}`).join(',')}`);
    expect(delays).toEqual(['600: a=100,b=150,c=300']);
    expect(h.groupUpdates.map((u) => u.at)).toEqual([600]);
  });

  it('does not retest a group\'s fresh selection measured within 15 s, but tests servers dialling through it', async () => {
    const h = monitorHarness({ servers: [fakeServer('sel'), fakeServer('hop', { via: 'sel' })] });
    await h.monitor.start();
    await h.clock.advance(10 * S);
    const before = h.probeTimes('sel').length;
    const test = h.monitor.testNow(['sel'], 'selection');
    await h.clock.advance(S);
    await test;
    expect(h.probeTimes('sel')).toHaveLength(before);
    expect(h.probeTimes('hop').at(-1)).toBe(10 * S);
    expect(h.monitoringLines().some((l) => l.includes('server sel selected: measured 9.9 s ago, not retested (15 s rule)'))).toBe(true);
    await h.clock.advance(5 * S);
    const later = h.monitor.testNow(['sel'], 'selection');
    await h.clock.advance(S);
    await later;
    expect(h.probeTimes('sel').at(-1)).toBe(16 * S);
  });

  it('lets Auto probe without recording, joining a test in flight', async () => {
    const h = monitorHarness({ servers: [fakeServer('a'), fakeServer('b')], behaviours: { a: { answerMs: 800 }, b: { answerMs: 60 } } });
    await h.monitor.start();
    await h.clock.advance(100);
    const joined = h.monitor.probe('a', 2000);
    const own = h.monitor.probe('b', 2000);
    await h.clock.advance(S);
    expect(await joined).toEqual({ delayMs: 800, at: h.t0 + 800 });
    expect(await own).toEqual({ delayMs: 60, at: h.t0 + 160 });
    // a joined the cycle's test in flight; b had answered already, so Auto's probe was its own and is not recorded.
    expect(h.probeTimes('a')).toEqual([0]);
    expect(h.probeTimes('b')).toEqual([0, 100]);
    expect(h.monitor.status('b')).toMatchObject({ testedAt: h.t0 + 60 });
    expect(h.monitor.status('b').recent).toHaveLength(1);
    await h.clock.advance(10 * S);
    // A fresh Auto probe of b (not joining anything) is not recorded.
    const recentBefore = h.monitor.status('b').recent.length;
    const fresh = h.monitor.probe('b', 2000);
    await h.clock.advance(S);
    expect(await fresh).toMatchObject({ delayMs: 60 });
    expect(h.monitor.status('b').recent).toHaveLength(recentBefore);
  });

  it('stores a measurement Auto commits once, even when the monitor recorded the same probe', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    await h.monitor.start();
    const probed = h.monitor.probe('a', 2000);
    await h.clock.advance(S);
    const r = await probed;
    h.monitor.record('a', { at: r.at, method: 'url', delayMs: 100 });
    expect(h.monitor.status('a').recent).toHaveLength(1);
    h.monitor.record('a', { at: h.clock.now(), method: 'url', delayMs: null, error: 'timeout' });
    expect(h.monitor.status('a')).toMatchObject({ delayMs: null, error: { kind: 'timeout' } });
    expect(h.monitor.status('a').recent).toHaveLength(2);
  });

  it('gives up on a joined test at Auto\'s own deadline', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], behaviours: { a: { answerMs: 4000 } } });
    await h.monitor.start();
    await h.clock.advance(100);
    const probed = h.monitor.probe('a', 1000);
    await h.clock.advance(1000);
    expect(await probed).toEqual({ delayMs: null, error: 'timeout', at: h.t0 + 1100 });
  });

  it('logs LOWEST lines for the decisions groups report', () => {
    const h = monitorHarness({ servers: [fakeServer('fi'), fakeServer('de')] });
    h.monitor.record('fi', { at: h.clock.now(), method: 'url', delayMs: 61 });
    h.monitor.record('de', { at: h.clock.now(), method: 'url', delayMs: 25 });
    h.monitor.reportSelection({ group: 'Auto (A)', decision: 'kept', serverId: 'fi', fastestId: 'de', reason: 'the current server answers' });
    const line = h.logs.find((r) => r.tag === 'LOWEST');
    expect(line).toMatchObject({ level: 'info', message: 'Auto (A): kept server fi (61 ms), fastest server de (25 ms): the current server answers' });
  });
});

describe('measurements Auto commits late', () => {
  it('never lets an older measurement replace a newer latest result', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    await h.monitor.start();
    await h.clock.advance(1000);
    expect(h.monitor.status('a')).toMatchObject({ delayMs: 100, testedAt: h.t0 + 100 });
    h.monitor.record('a', { at: h.t0 + 50, method: 'url', delayMs: null, error: 'timeout' });
    expect(h.monitor.status('a')).toMatchObject({ delayMs: 100, error: null });
    expect(h.monitor.status('a').recent.map((m) => m.delayMs)).toEqual([null, 100]);
  });
});
