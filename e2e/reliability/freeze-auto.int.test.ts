/**
 * Issue 29, end to end in the lab: a fresh data folder, 6 servers in one subscription, 5 of them
 * under the relay's 16 KB freeze, Auto on and connected, a 40 KB download each second. Auto is on
 * the healthy server within 20 s of connecting, at least 95 % of the downloads succeed from then
 * on, with at most 2 switches and none to a frozen server — with the healthy server last in
 * subscription order (Auto starts on the first, frozen one) and in the middle.
 */
import { describe, expect, it } from 'vitest';
import { freezeTrial } from './freeze-world';

describe('five of six servers freeze after 16 KB: Auto finds the healthy one', () => {
  it.each([
    ['last in subscription order', 5],
    ['third in subscription order', 2],
  ])('healthy server %s', async (_case, healthyIndex) => {
    const trial = await freezeTrial({ healthyIndex, deadlineMs: 20_000, afterMs: 20_000 });
    const story = trial.decisions.map((d) => JSON.stringify(d)).join('\n');
    expect(trial.onHealthyMs, `Auto on ${trial.healthy} within 20 s:\n${story}`).not.toBeNull();
    expect(trial.onHealthyMs!).toBeLessThanOrEqual(20_000);
    expect(trial.after.total).toBeGreaterThanOrEqual(15);
    expect(trial.after.ok / trial.after.total, `${trial.after.ok} of ${trial.after.total} downloads`).toBeGreaterThanOrEqual(0.95);
    expect(trial.switches.length, story).toBeLessThanOrEqual(2);
    expect(trial.switches.filter((s) => trial.frozen.includes(s.to)), story).toEqual([]);
    expect(trial.decisions.find((d) => d.type === 'check' && d.trigger === 'freeze'), 'the freeze check says what it saw').toMatchObject({
      transfer: { verdict: 'freezes', server: trial.frozen[0] },
    });
  }, 120_000);
});
