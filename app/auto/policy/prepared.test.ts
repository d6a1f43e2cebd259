/**
 * Preparing during a stall (check-start.ts `maybePrepare`): once a stall has lasted half the
 * threshold, the current server and the best candidates are probed; at the threshold the check
 * starts as the spec fixes and decides from the answers already in hand; a stall that heals first
 * changes nothing. A check started by a dial failure does not wait the three-delays floor.
 */
import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../../shared/domain/auto';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';
import type { AutoCommand, AutoEvent } from './types';

function harness() {
  const run = runReducer({
    subscriptions: [{ id: 'A', serverIds: ['fi', 'de', 'nl'] }],
    measurements: { fi: delays([60, 61, 62], { now: T0 }), de: delays([24, 25, 26], { now: T0 }), nl: delays([70, 72, 71], { now: T0 }) },
  });
  const send = (event: AutoEvent, atMs: number): void => void run.send(event, atMs);
  const all = run.commands;
  send({ type: 'tunnel-connected', serverId: 'fi' }, 0);
  const sample = (atMs: number, downBytes: number) => send({ type: 'traffic', sample: { at: T0 + atMs, intervalMs: 500, upBytes: 800, downBytes } }, atMs);
  /** Sending without receiving in every interval from 1 s on (the stall starts at 1 s). */
  const stallUntil = (lastMs: number, fromMs = 1500) => {
    for (let t = fromMs; t <= lastMs; t += 500) sample(t, 0);
  };
  const probeCommands = () => all.filter((c): c is Extract<AutoCommand, { kind: 'probe' }> => c.kind === 'probe');
  return {
    send,
    sample,
    stallUntil,
    probeCommands,
    result: (serverId: string, delayMs: number | null, atMs: number) => send({ type: 'probe-result', checkId: probeCommands().at(-1)!.checkId, serverId, delayMs }, atMs),
    get state() {
      return run.state;
    },
    decisions: (): string[] =>
      all.flatMap((c) => (c.kind === 'log' ? [line(c.decision)] : [])),
    records: () => all.flatMap((c) => (c.kind === 'record' ? c.results.map((r) => `${r.serverId}:${r.measurement.delayMs ?? 'null'}@${r.measurement.at - T0}`) : [])),
  };
}

function line(d: AutoDecision): string {
  const at = d.at - T0;
  switch (d.type) {
    case 'prepare':
      return `${at} prepare ${d.probe.join(',')}`;
    case 'check':
      return `${at} check ${d.trigger} ${d.probe.join(',')}`;
    case 'probe-result':
      return `${at} ${d.id} ${d.delay ?? 'silent'}${d.recorded ? '' : ' unrecorded'}`;
    case 'switch':
      return `${at} switch ${d.from}>${d.to} ${d.reason}`;
    case 'stay':
      return `${at} stay ${d.id} ${d.reason}`;
    default:
      return `${at} ${d.type}`;
  }
}

describe('preparing during a stall', () => {
  it('probes the current server and the best candidates at half the threshold, and decides at the threshold from the answers in hand', () => {
    const h = harness();
    h.stallUntil(3000);
    expect(h.probeCommands()).toEqual([]);
    h.stallUntil(3500, 3500);
    // 2.5 s of stall: the same servers the check would probe, sent now.
    // (The current server's ping is followed by a transfer test, as in the stall's check.)
    expect(h.probeCommands()).toEqual([{ kind: 'probe', checkId: 1, ids: ['fi', 'de', 'nl'], timeoutMs: 5000, purpose: 'ordinary', transferAfter: ['fi'] }]);
    expect(h.decisions()).toEqual(['3500 prepare fi,de,nl']);
    h.result('de', 25, 3525);
    h.result('nl', 71, 3571);
    h.stallUntil(5500, 4000);
    expect(h.decisions()).toEqual(['3500 prepare fi,de,nl']);
    // The threshold: the check starts (as the spec fixes) and Finland, silent for 2.5 s where
    // three of its usual delays are 0.8 s at least, is silent now: no new probe, no waiting.
    h.sample(6000, 0);
    expect(h.probeCommands()).toHaveLength(1);
    expect(h.decisions()).toEqual(['3500 prepare fi,de,nl', '6000 check stall fi,de,nl', '3525 de 25', '3571 nl 71', '6000 switch fi>de current-silent']);
    expect(h.records()).toEqual(['de:25@3525', 'nl:71@3571']);
    // Finland's probe runs on; what it returns is recorded when it comes.
    h.result('fi', null, 8500);
    expect(h.records()).toEqual(['de:25@3525', 'nl:71@3571', 'fi:null@8500']);
  });

  it('a stall that heals before the threshold changes nothing: no check, no switch, no cooldown, nothing recorded', () => {
    const h = harness();
    h.stallUntil(3500);
    h.result('de', 25, 3525);
    h.result('nl', 71, 3571);
    h.stallUntil(4000, 4000);
    h.sample(4500, 160_000);
    expect(h.decisions()).toEqual(['3500 prepare fi,de,nl', '3525 de 25 unrecorded', '3571 nl 71 unrecorded']);
    expect(h.state.check).toBeNull();
    expect(h.state.quiet).toBeNull();
    h.result('fi', 1200, 4700);
    expect(h.records()).toEqual([]);
    // The next stall prepares again at once: nothing holds it.
    // (sending without receiving from 4.5 s on: half the threshold at 7 s)
    h.stallUntil(7000, 5000);
    expect(h.decisions().at(-1)).toBe('7000 prepare fi,de,nl');
  });

  it('a dial failure during the preparation starts the check at once, from what is in hand', () => {
    const h = harness();
    h.stallUntil(3500);
    h.result('de', 25, 3525);
    h.send({ type: 'dial-failure', serverId: 'fi' }, 3600);
    // Finland is taken as silent at once; nl, 100 ms into its probe, could no longer beat de.
    expect(h.decisions()).toEqual(['3500 prepare fi,de,nl', '3600 check dial-failure fi,de,nl', '3525 de 25', '3600 switch fi>de current-silent']);
  });
});

describe('a check started by a dial failure', () => {
  it('takes the current server as silent as soon as another answered: the failed dial already said it is gone (no 0.8 s floor)', () => {
    const h = harness();
    h.send({ type: 'dial-failure', serverId: 'fi' }, 1000);
    expect(h.decisions()).toEqual(['1000 check dial-failure fi,de,nl']);
    h.result('de', 25, 1025);
    // nl could not beat de's S' = 25 + 2 any more: S'(25) for nl is at least 25 + 46.
    expect(h.decisions().at(-1)).toBe('1025 switch fi>de current-silent');
  });
});
