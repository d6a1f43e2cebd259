import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { ActivityTracker } from './activity';

const MINUTE = 60_000;

function tracker(idleMs = 10 * MINUTE) {
  const clock = new FakeClock();
  const activity = new ActivityTracker(clock, idleMs, () => undefined);
  const heard: string[] = [];
  activity.idled.on(() => heard.push(`idle at ${(clock.now() - t0) / MINUTE} min`));
  activity.resumed.on(() => heard.push(`resumed at ${(clock.now() - t0) / MINUTE} min`));
  const t0 = clock.now();
  return { clock, activity, heard, t0 };
}

describe('use of the connection', () => {
  it('stops testing after the idle timeout without traffic, counted from the last traffic, and resumes with the next', async () => {
    const { clock, activity, heard } = tracker();
    activity.start();
    expect(activity.isActive()).toBe(true);
    await clock.advance(4 * MINUTE);
    activity.seen();
    await clock.advance(9 * MINUTE);
    expect(activity.isActive()).toBe(true);
    await clock.advance(MINUTE);
    expect(activity.isActive()).toBe(false);
    activity.seen();
    expect(activity.isActive()).toBe(true);
    expect(heard).toEqual(['idle at 14 min', 'resumed at 14 min']);
  });

  it('tests nothing before start or after stop, whatever traffic passes', async () => {
    const { clock, activity } = tracker();
    activity.seen();
    expect(activity.running).toBe(false);
    expect(activity.isActive()).toBe(false);
    activity.start();
    expect(activity.isActive()).toBe(true);
    activity.stop();
    activity.seen();
    await clock.advance(MINUTE);
    expect(activity.running).toBe(false);
    expect(activity.isActive()).toBe(false);
  });

  it('never goes idle with an idle timeout of 0; a new timeout counts from the last traffic', async () => {
    const { clock, activity, heard } = tracker(0);
    activity.start();
    await clock.advance(24 * 60 * MINUTE);
    expect(activity.isActive()).toBe(true);
    activity.setIdleTimeout(MINUTE);
    await clock.advance(MINUTE);
    expect(activity.isActive()).toBe(false);
    // The last traffic was a day ago: idle at once.
    expect(heard).toEqual([`idle at ${24 * 60} min`]);
  });

  it('keeps telling the other listeners when one throws', async () => {
    const { clock, activity, heard } = tracker(MINUTE);
    activity.idled.on(() => {
      throw new Error('broken listener');
    });
    activity.start();
    await clock.advance(MINUTE);
    expect(heard).toEqual(['idle at 1 min']);
    expect(activity.isActive()).toBe(false);
  });
});
