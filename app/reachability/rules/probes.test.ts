/**
 * spec/reachability.md "What the client does with them", as `plan` decides it: which probes a
 * view calls for, when the plan looks again without new data, and the lines it logs. One row per
 * rule; the numbers are those of the default 5 min monitor interval (policy/rules.ts): a streak
 * counts from 3 failures over 60 s, a failure is re-tested from here 30 s after it, vantage
 * points are asked from the 2nd failure in a row, results stay fresh for 10 min.
 */
import { describe, expect, it } from 'vitest';
import { brief, planned, type ViewSpec } from '../testing/views';

const S = 1000;
const FAILING = 'reachability: A is failing: failed from here once; one failure means nothing (a verdict needs 3 failures in a row over at least 60 s)';
const TWICE = 'reachability: A is failing: failed from here 2 times in a row over 35 s; not yet a verdict (a verdict needs 3 failures in a row over at least 60 s)';
const ASKING_BCD = 'reachability: A keeps failing from here (2 in a row): asking B (AS2 network), C (AS3 network), D (AS4 network) (3 vantage point(s) in as many exit networks)';
/** A streak that counts: no more confirmations, a verdict needs the outside view. */
const STREAK = '✗130 ✗70 ✗5';

type Row = { rule: string; spec: ViewSpec; probes: string[]; wakeAt: number | null; logs: string[] };

const rows = (list: Row[]) => list;

describe('confirmations from here: one failure means nothing (seed rule 2)', () => {
  it.each(
    rows([
      { rule: 'every server answers: nothing to probe; look again when the oldest result ages out', spec: {}, probes: [], wakeAt: 590 * S + 1, logs: [] },
      { rule: 'a first failure: re-tested from here 30 s after it', spec: { here: { A: '✗10' } }, probes: [], wakeAt: 20 * S, logs: [FAILING] },
      { rule: '… and once that time has come, the confirmation', spec: { here: { A: '✗30' } }, probes: ['confirm A'], wakeAt: 570 * S + 1, logs: [FAILING] },
      { rule: 'not beside a confirmation in flight', spec: { here: { A: '✗30' }, confirmsInFlight: ['A'] }, probes: [], wakeAt: 570 * S + 1, logs: [FAILING] },
    ]),
  )('$rule', ({ spec, probes, wakeAt, logs }) => {
    expect(brief(planned(spec))).toEqual({ probes, wakeAt, logs });
  });
});

describe('rounds through vantage points: other working servers of other exit networks (quorum, seed rule 3)', () => {
  it.each(
    rows([
      {
        rule: 'the second failure in a row: one fastest server per other exit network, at most 3; the failure is re-tested meanwhile',
        spec: { here: { A: '✓400 ✗40 ✗5' } },
        probes: ['round A via B,C,D'],
        wakeAt: 25 * S,
        logs: [TWICE, ASKING_BCD],
      },
      {
        rule: "never a server of the target's own exit network, nor one that does not answer from here",
        spec: { servers: { A: 'AS1', B: 'AS1', C: 'AS3', D: 'AS4', E: 'AS5' }, here: { A: '✓400 ✗40 ✗5', D: '✓400 ✗5' } },
        probes: ['round A via C,E'],
        wakeAt: 25 * S,
        logs: [
          TWICE,
          'reachability: A keeps failing from here (2 in a row): asking C (AS3 network), E (AS5 network) (2 vantage point(s) in as many exit networks)',
          'reachability: D is failing: failed from here once; one failure means nothing (a verdict needs 3 failures in a row over at least 60 s)',
        ],
      },
      {
        rule: 'the trusted checker alone when it works: its single vote decides (seed rule 6)',
        spec: { here: { A: '✓400 ✗40 ✗5' }, trusted: 'C' },
        probes: ['round A via C'],
        wakeAt: 25 * S,
        logs: [TWICE, 'reachability: A keeps failing from here (2 in a row): asking C (AS3 network) (the trusted checker C works: its vote decides)'],
      },
      {
        rule: 'at most one round per monitor interval per server',
        spec: { here: { A: STREAK }, lastRoundAgo: { A: 240 } },
        probes: [],
        wakeAt: 60 * S,
        logs: ['reachability: A is unknown: it failed from here 3 times in a row over 2 min; no outside vantage point has answered yet'],
      },
      {
        rule: 'a round falls due long after the last failure: re-tested from here first, so outside votes meet a failure of the same moment',
        spec: { here: { A: '✗130 ✗70 ✗45' }, lastRoundAgo: { A: 400 } },
        probes: ['confirm A'],
        wakeAt: 470 * S + 1,
        logs: ['reachability: A is unknown: it failed from here 3 times in a row over 85 s; no outside vantage point has answered yet'],
      },
      {
        rule: "not beside a round in flight, and the target's line waits for the round's votes",
        spec: { here: { A: STREAK }, roundsInFlight: ['A'] },
        probes: [],
        wakeAt: 470 * S + 1,
        logs: [],
      },
      {
        rule: 'a target the core cannot chain: nobody is asked, and the verdict says why',
        spec: { here: { A: STREAK }, unchainable: { A: 'not supported by v2ray 4.34.0: chaining a server over WebSocket needs v2ray ≥ 4.35 or Xray' } },
        probes: [],
        wakeAt: 470 * S + 1,
        logs: ['reachability: A is unknown: it failed from here 3 times in a row over 2 min; not supported by v2ray 4.34.0: chaining a server over WebSocket needs v2ray ≥ 4.35 or Xray'],
      },
    ]),
  )('$rule', ({ spec, probes, wakeAt, logs }) => {
    expect(brief(planned(spec))).toEqual({ probes, wakeAt, logs });
  });
});

describe('the probe budget: at most 30 vantage probes per interval across all servers', () => {
  const spent = (n: number) => Array.from({ length: n }, (_, i) => 240 - i);
  it.each(
    rows([
      {
        rule: '30 spent: the round waits until the oldest leaves the window',
        spec: { here: { A: STREAK }, probesAgo: spent(30) },
        probes: [],
        wakeAt: 60 * S,
        logs: ['reachability: A is unknown: it failed from here 3 times in a row over 2 min; no outside vantage point has answered yet'],
      },
      {
        rule: '29 spent: a partial round takes what is left, and says so',
        spec: { here: { A: '✓400 ✗40 ✗5' }, probesAgo: spent(29) },
        probes: ['round A via B'],
        wakeAt: 25 * S,
        logs: [TWICE, 'reachability: A keeps failing from here (2 in a row): asking B (AS2 network) (3 vantage point(s) in as many exit networks, 1 of them within the probe budget)'],
      },
      {
        rule: 'probes planned for one server count against the next one in the same plan',
        spec: { servers: { A: 'AS1', B: 'AS2', C: 'AS3', D: 'AS4', E: 'AS5' }, here: { A: STREAK, B: STREAK }, probesAgo: spent(26) },
        probes: ['round A via C,D,E', 'round B via C'],
        wakeAt: 470 * S + 1,
        logs: [
          'reachability: A is unknown: it failed from here 3 times in a row over 2 min; no outside vantage point has answered yet',
          'reachability: A keeps failing from here (3 in a row): asking C (AS3 network), D (AS4 network), E (AS5 network) (3 vantage point(s) in as many exit networks)',
          'reachability: B is unknown: it failed from here 3 times in a row over 2 min; no outside vantage point has answered yet',
          'reachability: B keeps failing from here (3 in a row): asking C (AS3 network) (3 vantage point(s) in as many exit networks, 1 of them within the probe budget)',
        ],
      },
    ]),
  )('$rule', ({ spec, probes, wakeAt, logs }) => {
    expect(brief(planned(spec))).toEqual({ probes, wakeAt, logs });
  });
});

describe('nothing is spent when it would blame the wrong end', () => {
  it.each(
    rows([
      {
        rule: 'an idle device is never touched: no confirmation, no round; only ageing data wakes the plan (the first failure of the streak, 40 s old)',
        spec: { here: { A: '✓400 ✗40 ✗5' }, idle: true },
        probes: [],
        wakeAt: 560 * S + 1,
        logs: [TWICE],
      },
      {
        rule: 'half of the servers that worked fail at once: the network is lost, said once, and nobody is probed (seed rule 4)',
        spec: { here: { A: '✓400 ✗40 ✗5', B: '✓400 ✗40 ✗5' } },
        probes: [],
        wakeAt: 560 * S + 1,
        logs: ['reachability: your network looks down: 2 of 4 servers that worked fail from here at once: no server is blamed while it lasts'],
      },
      {
        rule: 'a network-lost signal from elsewhere (Auto) is enough on its own',
        spec: { here: { A: '✓400 ✗40 ✗5' }, networkLost: 'Auto found the network lost' },
        probes: [],
        wakeAt: 560 * S + 1,
        logs: ['reachability: Auto found the network lost: no server is blamed while it lasts'],
      },
    ]),
  )('$rule', ({ spec, probes, wakeAt, logs }) => {
    expect(brief(planned(spec))).toEqual({ probes, wakeAt, logs });
  });
});
