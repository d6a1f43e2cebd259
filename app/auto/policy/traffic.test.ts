import { describe, expect, it } from 'vitest';
import { observeSample, QUIET_TRACKER, restartSilence, trafficTrigger, type TrafficTracker } from './traffic';

/** Samples every 500 ms from 0: 'S' sent only, 'R' received, 'B' both, '.' nothing. */
function feed(pattern: string, stallThresholdMs = 5000): TrafficTracker {
  let tracker = QUIET_TRACKER;
  [...pattern].forEach((c, i) => {
    const sample = { at: (i + 1) * 500, intervalMs: 500, upBytes: c === 'S' || c === 'B' ? 100 : 0, downBytes: c === 'R' || c === 'B' ? 100 : 0 };
    tracker = observeSample(tracker, sample, stallThresholdMs);
  });
  return tracker;
}

describe('traffic triggers from stats samples', () => {
  it.each([
    // pattern (500 ms each), now, expected trigger
    { pattern: 'BBBB' + 'S'.repeat(10), now: 7000, expected: 'stall' }, // sending since 2 s, 5 s at 7 s
    { pattern: 'BBBB' + 'S'.repeat(9), now: 6500, expected: null }, // 4.5 s only
    { pattern: 'S'.repeat(10), now: 5000, expected: 'stall' }, // counts from the start of the first interval
    { pattern: 'SSSSSR' + 'SSSS', now: 5000, expected: null }, // an answer breaks the run
    { pattern: 'SSSS.SSSSSS', now: 5500, expected: 'stall' }, // a short pause is still "data is being sent"
    { pattern: 'S..S..S..S..S', now: 6500, expected: 'stall' }, // a request every 1.5 s, nothing back: still sending
    { pattern: 'SSSS.....SSSSSS', now: 7500, expected: null }, // a pause of half the threshold (2.5 s) breaks the run
    { pattern: 'SSSS.....SSSSSSSSSS', now: 9500, expected: 'stall' }, // …and a new run starts at the next send
    { pattern: 'S.....' + 'S.....'.repeat(9) + '.', now: 30_500, expected: 'no-receive-30s' }, // sparse: 30 s since the first unanswered send
    { pattern: 'S.....' + 'S.....'.repeat(9), now: 29_999, expected: null },
    { pattern: 'S.....' + 'R' + 'S.....'.repeat(9), now: 30_500, expected: null }, // an answer in between starts over
    { pattern: '.'.repeat(100), now: 50_000, expected: null }, // idle: nothing is ever due
  ])('$pattern at $now ms → $expected', ({ pattern, now, expected }) => {
    expect(trafficTrigger(feed(pattern), now, 5000)).toBe(expected);
  });

  it('a stall threshold of 2 s (mobile) fires sooner, and tolerates only 1 s pauses', () => {
    expect(trafficTrigger(feed('SSSS', 2000), 2000, 2000)).toBe('stall');
    expect(trafficTrigger(feed('S..S..S..S', 2000), 5000, 2000)).toBe(null);
  });

  it('remembers when there was traffic either way, for the scheduled check', () => {
    expect(feed('..R..').lastActivityAt).toBe(1500);
    expect(feed('S....').lastActivityAt).toBe(500);
    expect(feed('.....').lastActivityAt).toBeNull();
  });

  it('restarting forgets the silence but not the activity', () => {
    const t = restartSilence(feed('SSSSSSSSSSSS'));
    expect(t).toEqual({ stallSince: null, unansweredSince: null, lastActivityAt: 6000, lastSendAt: 6000 });
  });
});
