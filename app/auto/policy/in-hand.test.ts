/**
 * Answers in hand (in-hand.ts): in a check started by a dial failure, a candidate's URL answer
 * younger than 15 s counts as its answer once the check has a fresh answer of its own, so the
 * switch need not wait for slower candidates; every probe still goes out and what it returns is
 * recorded.
 */
import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../../shared/domain/auto';
import type { Measurement, ProbeFailure } from '../../../shared/domain/measurement';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import { initialState, NOTHING_PERSISTED } from './state';
import { step } from './step';
import type { AutoCommand, AutoEvent, AutoState } from './types';
import { worldOf } from './world';

const T0 = Date.UTC(2026, 0, 1, 12);
/** The dial failure, a minute after connecting. */
const F = 60_000;
const CONFIG = { stallThresholdMs: 5000, probeTimeoutMs: 5000 };

/** Delays oldest first, a minute apart, the last one `lastAgoMs` before the dial failure. */
const history = (values: (number | null)[], lastAgoMs: number): Measurement[] =>
  values.map((delayMs, i) => ({ at: T0 + F - lastAgoMs - (values.length - 1 - i) * 60_000, method: 'url', delayMs }));

function dialFailure(
  data: { measurements: Record<string, Measurement[]>; fromCache?: Record<string, boolean>; transfers?: Record<string, TransferVerdict> },
  kind?: ProbeFailure,
) {
  const world = worldOf({ subscriptions: [{ id: 'A', serverIds: ['fi', 'de', 'nl'] }], ...data });
  let state: AutoState = initialState(CONFIG, { ...NOTHING_PERSISTED, subscriptionId: 'A' }, T0);
  const all: AutoCommand[] = [];
  const send = (event: AutoEvent, atMs: number) => {
    const result = step(state, event, T0 + atMs, world);
    state = result.state;
    all.push(...result.commands);
  };
  send({ type: 'tunnel-connected', serverId: 'fi' }, 0);
  send({ type: 'dial-failure', serverId: 'fi', ...(kind ? { kind } : {}) }, F);
  const checkId = state.check?.id ?? state.trailing?.checkId;
  if (checkId === undefined) throw new Error('no check started');
  return {
    result: (serverId: string, delayMs: number | null, afterMs: number) => send({ type: 'probe-result', checkId, serverId, delayMs }, F + afterMs),
    decisions: (): AutoDecision[] => all.flatMap((c) => (c.kind === 'log' ? [c.decision] : [])),
    switches: () => all.flatMap((c) => (c.kind === 'log' && c.decision.type === 'switch' ? [`+${c.decision.at - T0 - F} ${c.decision.from}>${c.decision.to}`] : [])),
    records: () => all.flatMap((c) => (c.kind === 'record' ? c.results.map((r) => `${r.serverId}:${r.measurement.delayMs ?? 'null'}`) : [])),
  };
}

const FI = history([60, 61, 62], 3600_000);

describe('answers in hand after a dial failure', () => {
  it('a candidate measured 6 s ago has answered: the switch comes with the first fresh answer, not after its own probe', () => {
    const h = dialFailure({ measurements: { fi: FI, de: history([24, 25, 26], 6000), nl: history([70, 72, 71], 6000) } });
    expect(h.decisions()[0]).toEqual({
      type: 'check',
      at: T0 + F,
      trigger: 'dial-failure',
      probe: ['fi', 'de', 'nl'],
      inHand: [
        { id: 'de', delay: 26, ageMs: 6000 },
        { id: 'nl', delay: 71, ageMs: 6000 },
      ],
    });
    h.result('fi', null, 8);
    expect(h.switches()).toEqual([]);
    // nl's answer shows the network and the subscription are there; de (26 ms 6 s ago, S' 28)
    // is the best, and its probe, slow under load, is not waited for.
    h.result('nl', 73, 300);
    expect(h.switches()).toEqual(['+300 fi>de']);
    h.result('de', 25, 600);
    // Every probe is recorded once, the answers in hand are not recorded again.
    expect(h.records()).toEqual(['fi:null', 'nl:73', 'de:25']);
  });

  // A reset comes from the far end, but a network that resets every foreign connection is, for
  // the user, a network that is gone: spec/auto.md says which only once the neighbours are asked.
  it.each([undefined, 'reset', 'refused'] as const)('answers in hand decide nothing while nothing answers in this check (dial failure: %s): a fault of the whole subscription is still found as such', (kind) => {
    const h = dialFailure({ measurements: { fi: FI, de: history([24, 25, 26], 6000), nl: history([70, 72, 71], 6000) } }, kind);
    h.result('fi', null, 8);
    h.result('de', null, 10);
    h.result('nl', null, 12);
    expect(h.switches()).toEqual([]);
    // Auto's only subscription, silent: taken for a lost network, nothing recorded.
    expect(h.decisions().at(-1)).toMatchObject({ type: 'network-lost', attempt: 1 });
    expect(h.records()).toEqual([]);
  });

  it.each([
    { name: 'older than 15 s', data: { measurements: { fi: FI, de: history([24, 25, 26], 16_000), nl: history([70, 72, 71], 16_000) } } },
    { name: 'its latest measurement failed', data: { measurements: { fi: FI, de: [...history([24, 25], 70_000), ...history([null], 6000)], nl: history([70, 72, 71], 16_000) } } },
    { name: 'loaded from the cache of the previous run', data: { measurements: { fi: FI, de: history([24, 25, 26], 6000), nl: history([70, 72, 71], 16_000) }, fromCache: { de: true } } },
    { name: 'its transfer test froze', data: { measurements: { fi: FI, de: history([24, 25, 26], 6000), nl: history([70, 72, 71], 16_000) }, transfers: { de: 'freezes' as const } } },
    { name: 'a TCP ping, not a URL answer', data: { measurements: { fi: FI, de: history([24, 25, 26], 6000).map((m) => ({ ...m, method: 'tcp' as const })), nl: history([70, 72, 71], 16_000) } } },
  ])('an answer that is not in hand ($name): the check waits for the probes', ({ data }) => {
    const h = dialFailure(data);
    expect(h.decisions()[0]).not.toHaveProperty('inHand');
    expect(h.switches()).toEqual([]);
    h.result('fi', null, 8);
    expect(h.switches()).toEqual([]);
    // nl's probe answers 0.3 s in; de, still probing, could no longer beat it.
    h.result('nl', 71, 300);
    expect(h.switches()).toEqual(['+300 fi>nl']);
  });

  it('a server with no answer in hand that could still beat the best keeps the check open', () => {
    // de's recent answer jumps around (S' = 300 + (300 − 20) = 580); nl's steady history was
    // measured an hour ago, so it is probed, and at 0 s it could still score 72.
    const h = dialFailure({ measurements: { fi: FI, de: history([20, 25, 300], 6000), nl: history([70, 72, 71], 3600_000) } });
    expect(h.decisions()[0]).toMatchObject({ inHand: [{ id: 'de', delay: 300, ageMs: 6000 }] });
    expect(h.switches()).toEqual([]);
    h.result('nl', 71, 71);
    expect(h.switches()).toEqual(['+71 fi>nl']);
  });

  it('a fresh result that comes before the decision replaces the answer in hand', () => {
    const h = dialFailure({ measurements: { fi: FI, de: history([20, 25, 300], 6000), nl: history([70, 72, 71], 3600_000) } });
    // de's probe fails now: its answer of 6 s ago no longer counts, nl is the only one left.
    h.result('de', null, 20);
    h.result('nl', 71, 71);
    expect(h.switches()).toEqual(['+71 fi>nl']);
  });

  it.each(['reset', 'refused', 'timeout', 'network', undefined] as const)('a dial failure by %s: the check line says how, and the answers in hand still wait for a fresh one', (kind) => {
    const h = dialFailure({ measurements: { fi: FI, de: history([24, 25, 26], 6000), nl: history([70, 72, 71], 6000) } }, kind);
    expect(h.decisions()[0]).toEqual(expect.objectContaining({ type: 'check', trigger: 'dial-failure', ...(kind ? { failure: kind } : {}) }));
    if (!kind) expect(h.decisions()[0]).not.toHaveProperty('failure');
    h.result('fi', null, 8);
    expect(h.switches()).toEqual([]);
    h.result('nl', 73, 300);
    expect(h.switches()).toEqual(['+300 fi>de']);
  });
});
