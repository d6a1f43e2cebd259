/**
 * What `plan` tells the log and the listeners (spec/reachability.md: "the verdict is shown with
 * its reason"; every verdict change is logged naming the vantage points), and the failure
 * episodes a verdict's cost is counted over. Sequences feed each plan's `reported` into the next.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../policy/plan';
import { NOTHING_REPORTED } from '../policy/report';
import { NOW, planned, S, type ViewSpec } from '../testing/views';

const FAILING = 'reachability: A is failing: failed from here once; one failure means nothing (a verdict needs 3 failures in a row over at least 60 s)';
const STREAK = '✗130 ✗70 ✗5';
const BLOCKED_HERE = 'reachability: A is blocked here: reached through B (AS2 network) and C (AS3 network) but it failed from here 3 times in a row over 2 min: blocked on your network';
const LOST = 'reachability: your network looks down: 2 of 4 servers that worked fail from here at once: no server is blamed while it lasts';

/** Plans each view in turn, each with what the one before it reported. */
function sequence(steps: ViewSpec[]): Plan[] {
  const plans: Plan[] = [];
  let reported = NOTHING_REPORTED;
  for (const spec of steps) {
    const next = planned({ ...spec, reported });
    plans.push(next);
    reported = next.reported;
  }
  return plans;
}

const changedIds = (p: Plan) => p.changes.map((c) => `${c.serverId} ${c.previous?.verdict ?? '-'}>${c.current.verdict}`);

describe('a log line per change of verdict or vantage points; listeners hear every change', () => {
  it.each([
    {
      rule: 'ok says nothing at first; failing is logged; ok after failing is logged',
      steps: [{}, { here: { A: '✓400 ✗10' } }, { here: { A: '✓400 ✗10 ✓2' } }],
      logs: [[], [FAILING], ['reachability: A is ok: answers from here']],
      changes: [['A ->ok', 'B ->ok', 'C ->ok', 'D ->ok'], ['A ok>failing'], ['A failing>ok']],
    },
    {
      rule: 'the same verdict is not logged twice, though listeners hear its new reason',
      steps: [{ here: { A: '✓400 ✗10' } }, { here: { A: '✓400 ✗40 ✗5' }, lastRoundAgo: { A: 60 } }],
      logs: [[FAILING], []],
      changes: [['A ->failing', 'B ->ok', 'C ->ok', 'D ->ok'], ['A failing>failing']],
    },
    {
      rule: "while a round's votes come in the line waits; it is said once they are all in",
      steps: [
        { here: { A: STREAK }, votes: { A: 'B✓3' }, roundsInFlight: ['A'], lastRoundAgo: { A: 4 } },
        { here: { A: STREAK }, votes: { A: 'B✓3 C✓2' }, lastRoundAgo: { A: 4 } },
      ],
      logs: [[], [BLOCKED_HERE]],
      changes: [['A ->unknown', 'B ->ok', 'C ->ok', 'D ->ok'], ['A unknown>blocked-here']],
    },
    {
      rule: 'the network lost is said once, nobody is blamed meanwhile, and its end is said',
      steps: [{ here: { A: '✓400 ✗40 ✗5', B: '✓400 ✗40 ✗5' } }, { here: { A: '✓400 ✗50 ✗15', B: '✓400 ✗50 ✗15' } }, {}],
      logs: [[LOST], [], ['reachability: your network answers again: verdicts are derived as usual']],
      changes: [['A ->unknown', 'B ->unknown', 'C ->ok', 'D ->ok'], [], ['A unknown>ok', 'B unknown>ok']],
    },
    {
      rule: 'a server taken off the list is forgotten: back again, its verdict is said again',
      steps: [{ here: { A: '✓400 ✗10' } }, { servers: { B: 'AS2', C: 'AS3', D: 'AS4' } }, { here: { A: '✓400 ✗10' } }],
      logs: [[FAILING], [], [FAILING]],
      changes: [['A ->failing', 'B ->ok', 'C ->ok', 'D ->ok'], [], ['A ->failing']],
    },
  ])('$rule', ({ steps, logs, changes }) => {
    const plans = sequence(steps);
    expect(plans.map((p) => p.logs)).toEqual(logs);
    expect(plans.map(changedIds)).toEqual(changes);
  });
});

describe('what a verdict cost: the probes spent since the first failure of its streak', () => {
  it('a verdict logged during an episode carries its cost, and the cost is kept', () => {
    const p = planned({
      here: { A: STREAK },
      votes: { A: 'B✓3 C✓2' },
      lastRoundAgo: { A: 4 },
      episodes: { A: { firstFailureAgo: 130, vantageProbes: 3, inconclusiveProbes: 0, rounds: 1, confirmations: 2 } },
    });
    expect(p.logs).toEqual([`${BLOCKED_HERE} [spent: 3 vantage probe(s) in 1 round(s), 2 confirmation(s) from here, 2 min since the first failure]`]);
    expect(p.budgets).toEqual([{ serverId: 'A', name: 'A', verdict: 'blocked-here', at: NOW, vantageProbes: 3, inconclusiveProbes: 0, rounds: 1, confirmations: 2, sinceFirstFailureMs: 130 * S }]);
  });

  const episode = { firstFailureAgo: 40, vantageProbes: 0, inconclusiveProbes: 0, rounds: 0, confirmations: 1 };
  it.each([
    { rule: 'an episode begins at the first failure seen', spec: { here: { A: '✓400 ✗10' } }, begun: [{ serverId: 'A', firstFailureAt: NOW - 10 * S }], ended: [] },
    { rule: 'not on an idle device (nothing is spent there)', spec: { here: { A: '✓400 ✗10' }, idle: true }, begun: [], ended: [] },
    { rule: 'an open episode is not begun again', spec: { here: { A: '✓400 ✗40 ✗5' }, episodes: { A: episode } }, begun: [], ended: [] },
    { rule: 'it ends when the server answers', spec: { here: { A: '✗40 ✓5' }, episodes: { A: episode } }, begun: [], ended: ['A'] },
    { rule: 'it ends when no result from here is fresh', spec: { here: { A: '✗700' }, episodes: { A: episode } }, begun: [], ended: ['A'] },
  ])('$rule', ({ spec, begun, ended }) => {
    expect(planned(spec).episodes).toEqual({ begun, ended });
  });
});
