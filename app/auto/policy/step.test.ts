/**
 * The reducer on its own, for rules the simulator's world cannot reach (or reaches only
 * indirectly): refusals, tunnel events, abandoned checks, wake-ups, what is recorded.
 */
import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../../shared/domain/auto';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';
import type { PersistedAutoState } from './state';
import type { AutoCommand, AutoEvent } from './types';
import type { WorldData } from './world';

function harness(data: Partial<WorldData> = {}, persisted: Partial<PersistedAutoState> = {}) {
  const run = runReducer({
    subscriptions: [
      { id: 'A', serverIds: ['fi', 'de', 'nl'] },
      { id: 'B', serverIds: ['b1', 'b2'] },
    ],
    measurements: { fi: delays([60, 61, 62], { now: T0 }), de: delays([20, 25, 300], { now: T0 }), nl: delays([70, 72, 71], { now: T0 }) },
    ...data,
  }, { persisted });
  const h = {
    send: (event: AutoEvent, atMs = 0): AutoCommand[] => run.send(event, atMs),
    get state() {
      return run.state;
    },
    /** Samples of 500 ms from `fromMs` to `toMs` (exclusive of the start). */
    traffic(fromMs: number, toMs: number, received: boolean): AutoCommand[] {
      const out: AutoCommand[] = [];
      for (let t = fromMs + 500; t <= toMs; t += 500) {
        out.push(...h.send({ type: 'traffic', sample: { at: T0 + t, intervalMs: 500, upBytes: 1000, downBytes: received ? 9000 : 0 } }, t));
      }
      return out;
    },
  };
  return h;
}

const decisions = (commands: AutoCommand[]): AutoDecision[] => commands.flatMap((c) => (c.kind === 'log' ? [c.decision] : []));
const kinds = (commands: AutoCommand[]) => commands.map((c) => c.kind);

describe('events that start nothing', () => {
  it('a dial failure of a server other than the current one', () => {
    const h = harness();
    h.send({ type: 'tunnel-connected', serverId: 'fi' });
    expect(decisions(h.send({ type: 'dial-failure', serverId: 'nl' }, 1000))).toEqual([]);
    expect(decisions(h.send({ type: 'dial-failure', serverId: 'fi' }, 2000))).toMatchObject([{ type: 'check', trigger: 'dial-failure' }]);
  });

  it('a stall while the OS reports no network, or while disconnected, or with Auto off', () => {
    for (const setup of [
      (h: ReturnType<typeof harness>) => h.send({ type: 'network', state: 'none' }),
      (h: ReturnType<typeof harness>) => h.send({ type: 'tunnel-disconnected' }),
      (h: ReturnType<typeof harness>) => h.send({ type: 'set-auto', subscriptionId: null }),
    ]) {
      const h = harness();
      h.send({ type: 'tunnel-connected', serverId: 'fi' });
      setup(h);
      expect(decisions(h.traffic(0, 20_000, false))).toEqual([]);
    }
  });
});

describe('refusals', () => {
  it('marking every present server is refused with the reason, and nothing changes', () => {
    const h = harness({}, { excluded: { A: ['de'] } });
    const commands = h.send({ type: 'set-excluded', subscriptionId: 'A', ids: ['fi', 'de', 'nl'] });
    expect(commands).toContainEqual({ kind: 'refuse', code: 'last-unmarked-server', reason: expect.stringContaining('last unmarked server cannot be marked') });
    expect(h.state.excluded).toEqual({ A: ['de'] });
  });

  it('marks of servers absent now are kept when the user changes the present ones', () => {
    const h = harness({}, { excluded: { A: ['gone'] } });
    h.send({ type: 'set-excluded', subscriptionId: 'A', ids: ['de'] });
    expect(h.state.excluded).toEqual({ A: ['de', 'gone'] });
    h.send({ type: 'set-excluded', subscriptionId: 'A', ids: [] });
    expect(h.state.excluded).toEqual({ A: ['gone'] });
  });

  it('Auto on for a subscription that does not exist', () => {
    const h = harness();
    expect(h.send({ type: 'set-auto', subscriptionId: 'nope' })).toContainEqual({ kind: 'refuse', code: 'no-such-subscription', reason: 'There is no subscription "nope".' });
    expect(h.state.subscriptionId).toBe('A');
  });
});

describe('the tunnel', () => {
  it('connecting outside Auto\'s subscription is corrected to its best server', () => {
    const h = harness();
    expect(h.send({ type: 'tunnel-connected', serverId: 'b2' })).toContainEqual({ kind: 'connect', serverId: 'fi', reason: 'auto-on' });
  });

  it('... unless Auto had moved there itself (a return candidate is remembered): then the own subscription is retried', () => {
    const h = harness({}, { returnCandidate: 'fi' });
    const commands = h.send({ type: 'tunnel-connected', serverId: 'b1' });
    expect(kinds(commands)).not.toContain('connect');
    expect(h.state.away).toEqual({ failures: 0, nextRetryAt: T0 + 60_000, lastRetryAt: T0 });
    h.traffic(0, 60_000, true);
    expect(h.state.check).toMatchObject({ kind: 'own-sub-retry', ownIds: ['b1', 'fi', 'nl', 'de'] });
  });

  it('disconnecting mid-check ends it: what answered is logged and recorded, late answers are ignored', () => {
    const h = harness();
    h.send({ type: 'tunnel-connected', serverId: 'fi' });
    h.send({ type: 'check-now' }, 1000);
    const checkId = h.state.check!.id;
    h.send({ type: 'probe-result', checkId, serverId: 'de', delayMs: 25 }, 1025);
    const commands = h.send({ type: 'tunnel-disconnected' }, 1030);
    expect(decisions(commands)).toEqual([{ type: 'probe-result', at: T0 + 1025, id: 'de', delay: 25, recorded: true }]);
    expect(commands).toContainEqual({ kind: 'record', results: [{ serverId: 'de', measurement: { at: T0 + 1025, method: 'url', delayMs: 25 } }] });
    expect(h.send({ type: 'probe-result', checkId, serverId: 'nl', delayMs: 71 }, 1071)).toEqual([]);
  });

  it('a failed probe is recorded with its kind of failure', () => {
    const h = harness();
    h.send({ type: 'tunnel-connected', serverId: 'fi' });
    h.send({ type: 'check-now' }, 1000);
    const checkId = h.state.check!.id;
    h.send({ type: 'probe-result', checkId, serverId: 'de', delayMs: 25 }, 1025);
    h.send({ type: 'probe-result', checkId, serverId: 'nl', delayMs: 71 }, 1071);
    const commands = h.send({ type: 'probe-result', checkId, serverId: 'fi', delayMs: null, error: 'reset' }, 1100);
    const record = commands.find((c) => c.kind === 'record');
    expect(record).toMatchObject({ results: [{ serverId: 'de' }, { serverId: 'nl' }, { serverId: 'fi', measurement: { delayMs: null, error: 'reset', method: 'url' } }] });
  });
});

describe('wake-ups', () => {
  it('asks to be woken for the scheduled check, and for nothing while Auto cannot act', () => {
    const h = harness();
    expect(h.send({ type: 'tunnel-connected', serverId: 'fi' }, 1000)).toContainEqual({ kind: 'wake', at: T0 + 301_000 });
    expect(h.send({ type: 'tunnel-disconnected' }, 2000)).toContainEqual({ kind: 'wake', at: null });
  });

  it('a due check held by a cooldown wakes when the cooldown ends', () => {
    const h = harness();
    h.send({ type: 'tunnel-connected', serverId: 'fi' });
    h.send({ type: 'check-now' }, 290_000);
    const checkId = h.state.check!.id;
    for (const [id, d] of [['de', 25], ['fi', 60], ['nl', 71]] as const) h.send({ type: 'probe-result', checkId, serverId: id, delayMs: d }, 290_000 + d);
    // Traffic since the start makes the scheduled check due at 300 s, inside the 15 s cooldown.
    h.traffic(290_071, 300_000, true);
    expect(h.state.wakeAt).toBe(T0 + 305_071);
    const commands = h.send({ type: 'wake' }, 305_071);
    expect(decisions(commands)).toMatchObject([{ type: 'check', trigger: 'scheduled' }]);
  });
});

describe('snapshot changes are announced', () => {
  it('emits when the marks change, even without a decision', () => {
    const h = harness();
    expect(kinds(h.send({ type: 'set-excluded', subscriptionId: 'A', ids: ['nl'] }))).toEqual(['emit']);
  });
});
