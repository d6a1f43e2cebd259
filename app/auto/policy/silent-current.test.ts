/**
 * When a check may take the current server as silent before every probe has returned
 * (check-end.ts `concludeEarly`): a check started by a sign of failure gives the current server
 * three of its usual delays (at least 0.8 s) once another server answered; a failed probe is
 * silence at once; the check still waits for any server that could beat the best answer; late
 * answers are recorded when they come.
 */
import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../../shared/domain/auto';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';

function harness(history: Record<string, (number | null)[]>) {
  const run = runReducer({
    subscriptions: [{ id: 'A', serverIds: ['fi', 'de', 'nl'] }],
    measurements: Object.fromEntries(Object.entries(history).map(([id, d]) => [id, delays(d, { now: T0 })])),
  });
  const { send } = run;
  send({ type: 'tunnel-connected', serverId: 'fi' }, 0);
  // A stall: 5 s of sending without receiving, from 1 s on, reported in one long interval after
  // the first, so no preparation precedes the check and its probes go out as it starts
  // (prepared.test.ts has the stall seen every 500 ms).
  send({ type: 'traffic', sample: { at: T0 + 1500, intervalMs: 500, upBytes: 800, downBytes: 0 } }, 1500);
  send({ type: 'traffic', sample: { at: T0 + 6000, intervalMs: 4500, upBytes: 7200, downBytes: 0 } }, 6000);
  const check = run.state.check;
  if (!check) throw new Error('no check started');
  return {
    checkId: check.id,
    startedAt: check.startedAt - T0,
    result: (serverId: string, delayMs: number | null, atMs: number) => send({ type: 'probe-result', checkId: check.id, serverId, delayMs }, atMs),
    transfer: (serverId: string, verdict: 'ok' | 'freezes', atMs: number) => send({ type: 'transfer-result', checkId: check.id, serverId, verdict }, atMs),
    wake: (atMs: number) => send({ type: 'wake' }, atMs),
    get state() {
      return run.state;
    },
    decisions: (): AutoDecision[] => run.decisions(),
    records: () => run.commands.flatMap((c) => (c.kind === 'record' ? c.results.map((r) => `${r.serverId}:${r.measurement.delayMs ?? 'null'}`) : [])),
    wakes: () => run.commands.flatMap((c) => (c.kind === 'wake' ? [c.at === null ? null : c.at - T0] : [])),
  };
}

const switches = (d: AutoDecision[]) => d.filter((x) => x.type === 'switch').map((x) => (x.type === 'switch' ? `${x.at - T0} ${x.from}>${x.to}` : ''));

describe('a silent current server in a check started by a sign of failure', () => {
  it('is silent 0.8 s into a stall check when others answered and it did not (a 60 ms server)', () => {
    const h = harness({ fi: [60, 61, 62], de: [24, 25, 26], nl: [70, 72, 71] });
    expect(h.startedAt).toBe(6000);
    // The runtime is asked to wake at the deadline.
    expect(h.wakes()).toContain(6800);
    h.result('de', 25, 6025);
    h.result('nl', 71, 6071);
    expect(switches(h.decisions())).toEqual([]);
    h.wake(6800);
    expect(switches(h.decisions())).toEqual(['6800 fi>de']);
    // Nothing is invented for Finland: its probe runs on to its timeout, and what it returns is recorded.
    expect(h.decisions().filter((d) => d.type === 'probe-result' && d.id === 'fi')).toEqual([]);
    expect(h.records()).toEqual(['de:25', 'nl:71']);
  });

  it('records what the current server returns after the check moved on: a late answer is an answer, not a failure costing +1000 for 24 h', () => {
    const h = harness({ fi: [60, 61, 62], de: [24, 25, 26], nl: [70, 72, 71] });
    h.result('de', 25, 6025);
    h.result('nl', 71, 6071);
    h.wake(6800);
    expect(switches(h.decisions())).toEqual(['6800 fi>de']);
    // Under load a 60 ms server read 2549 ms (seed 000): that is its measurement.
    h.result('fi', 2549, 8549);
    expect(h.records()).toEqual(['de:25', 'nl:71', 'fi:2549']);
    expect(h.decisions().at(-1)).toEqual({ type: 'probe-result', at: T0 + 8549, id: 'fi', delay: 2549, recorded: true });
    expect(h.state.returnCandidate).toBe('fi');

    // A probe that times out is a measured failure, recorded when it ends.
    const dead = harness({ fi: [60, 61, 62], de: [24, 25, 26], nl: [70, 72, 71] });
    dead.result('de', 25, 6025);
    dead.result('nl', 71, 6071);
    dead.wake(6800);
    dead.result('fi', null, 11_000);
    expect(dead.records()).toEqual(['de:25', 'nl:71', 'fi:null']);
    expect(dead.decisions().at(-1)).toEqual({ type: 'probe-result', at: T0 + 11_000, id: 'fi', delay: null, recorded: true });
  });

  it('gets three of its usual delays when it is a slow server, and stays when it answers within them', () => {
    const slow = harness({ fi: [400, 410, 420], de: [24, 25, 26], nl: [70, 72, 71] });
    slow.result('de', 25, 6025);
    slow.wake(6800);
    expect(switches(slow.decisions())).toEqual([]);
    slow.result('fi', 1100, 7100);
    // Finland answered within 3 × 410 ms, and its traffic moves (the stall check's transfer test):
    // the check ends the ordinary way once nl answers.
    slow.transfer('fi', 'ok', 7140);
    slow.result('nl', 71, 7150);
    expect(slow.decisions().at(-1)).toMatchObject({ type: 'stay', id: 'fi', reason: 'current-answered' });

    const dead = harness({ fi: [400, 410, 420], de: [24, 25, 26], nl: [70, 72, 71] });
    dead.result('de', 25, 6025);
    dead.result('nl', 71, 6071);
    dead.wake(7230);
    expect(switches(dead.decisions())).toEqual(['7230 fi>de']);
  });

  it('waits the whole probe timeout when its usual delay is unknown', () => {
    const h = harness({ de: [24, 25, 26], nl: [70, 72, 71] });
    h.result('de', 25, 6025);
    h.result('nl', 71, 6071);
    expect(h.wakes().filter((w) => w !== null && w > 6000 && w < 11_000)).toEqual([]);
    h.result('fi', null, 11_000);
    expect(switches(h.decisions())).toEqual(['11000 fi>de']);
  });

  it('keeps waiting while a server still probing could beat the best answer, and records late answers', () => {
    // nl's history is steady; de answered now but jumps around: S'(de) = 300 + (300 − 20) = 580.
    const h = harness({ fi: [60, 61, 62], de: [20, 25, 300], nl: [70, 72, 71] });
    h.result('de', 300, 6300);
    h.wake(6800);
    // nl has not answered by 0.8 s; answering now or later it would score at least
    // S'(800) = 800 + (800 − 70) = 1530 > 580, so the check need not wait for it.
    expect(switches(h.decisions())).toEqual(['6800 fi>de']);
    h.result('nl', 71, 9000);
    expect(h.records()).toEqual(['de:300', 'nl:71']);
    expect(h.decisions().at(-1)).toEqual({ type: 'probe-result', at: T0 + 9000, id: 'nl', delay: 71, recorded: true });
  });

  it('holds the check open for a server whose lower bound is still below the best', () => {
    // de answered 900 ms in with a steady history (S' = 900 + 876 = 1776); nl (70–72) could still
    // beat that at 0.9 s (S' ≥ 900 + 830 = 1730): the check waits for nl.
    const h = harness({ fi: [60, 61, 62], de: [24, 25, 26], nl: [70, 72, 71] });
    h.result('de', 900, 6900);
    expect(switches(h.decisions())).toEqual([]);
    h.result('nl', 71, 6950);
    expect(switches(h.decisions())).toEqual(['6950 fi>nl']);
  });
});

describe('a current server whose probe failed', () => {
  it('is silent at once: the check ends when no server still probing could do better', () => {
    const h = harness({ fi: [60, 61, 62], de: [24, 25, 26], nl: [70, 72, 71] });
    h.result('fi', null, 6010);
    h.result('de', 25, 6025);
    expect(switches(h.decisions())).toEqual(['6025 fi>de']);
  });
});
