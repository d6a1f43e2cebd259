/**
 * A server whose transfer test says it freezes answers pings but carries no traffic: Auto counts
 * it as not answering in its checks, and a check started by the user's traffic stalling follows
 * the current server's ping with a transfer test before it concludes.
 */
import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../../shared/domain/auto';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';
const HISTORY = { fi: delays([60, 61, 62], { now: T0 }), de: delays([24, 25, 26], { now: T0 }), nl: delays([70, 72, 71], { now: T0 }) };

function harness(transfers: Record<string, TransferVerdict> = {}) {
  const run = runReducer({ subscriptions: [{ id: 'A', serverIds: ['fi', 'de', 'nl'] }], measurements: HISTORY, transfers });
  const send = run.send;
  send({ type: 'tunnel-connected', serverId: 'fi' }, 0);
  // The latest check's id, also once it ended (late answers of a check that ended early).
  const checkId = run.lastProbeCheckId;
  return {
    transfers,
    get state() {
      return run.state;
    },
    /** 5 s of stall, seen in one long interval after the first: no preparation, the probes go out as the check starts. */
    stall(fromMs: number) {
      send({ type: 'traffic', sample: { at: T0 + fromMs + 500, intervalMs: 500, upBytes: 800, downBytes: 0 } }, fromMs + 500);
      send({ type: 'traffic', sample: { at: T0 + fromMs + 5000, intervalMs: 4500, upBytes: 7200, downBytes: 0 } }, fromMs + 5000);
    },
    checkNow: (atMs: number) => send({ type: 'check-now' }, atMs),
    result: (serverId: string, delayMs: number | null, atMs: number) => send({ type: 'probe-result', checkId: checkId(), serverId, delayMs }, atMs),
    transfer: (serverId: string, verdict: TransferVerdict | null, atMs: number) => send({ type: 'transfer-result', checkId: checkId(), serverId, verdict }, atMs),
    probes: () => run.commands.flatMap((c) => (c.kind === 'probe' ? [c] : [])),
    decisions: (): AutoDecision[] => run.decisions(),
  };
}

const outcome = (d: AutoDecision[]) =>
  d.filter((x) => x.type === 'switch' || x.type === 'stay').map((x) => (x.type === 'switch' ? `switch ${x.from}>${x.to} ${x.reason}` : x.type === 'stay' ? `stay ${x.id} ${x.reason}` : ''));

describe('Auto and the transfer test', () => {
  it.each([
    // case, latest transfer verdicts, the check's outcome
    ['the current server freezes: its ping answer does not keep it', { fi: 'freezes' }, ['switch fi>de current-silent']],
    ['a freezing server is no switch target, even the fastest', { fi: 'freezes', de: 'freezes' }, ['switch fi>nl current-silent']],
    ['a throttled current server keeps its place', { fi: 'throttled' }, ['stay fi current-answered']],
    ['a passing transfer changes nothing', { fi: 'ok', de: 'ok' }, ['stay fi current-answered']],
  ] as const)('%s', (_case, transfers, expected) => {
    const h = harness({ ...transfers });
    h.checkNow(1000);
    h.result('fi', 61, 1061);
    h.result('de', 25, 1025);
    h.result('nl', 71, 1071);
    expect(outcome(h.decisions())).toEqual(expected);
  });

  it('names the reason on the probe line: the timeline says why a pinging server was skipped', () => {
    const h = harness({ fi: 'freezes', nl: 'throttled' });
    h.checkNow(1000);
    h.result('fi', 61, 1061);
    h.result('de', 25, 1025);
    h.result('nl', 71, 1071);
    const results = h.decisions().filter((d) => d.type === 'probe-result');
    expect(results).toContainEqual(expect.objectContaining({ id: 'fi', delay: 61, transfer: 'freezes', recorded: true }));
    expect(results).toContainEqual(expect.objectContaining({ id: 'nl', delay: 71, transfer: 'throttled' }));
    expect(results.find((d) => d.type === 'probe-result' && d.id === 'de')).not.toHaveProperty('transfer');
  });

  it('a stall check follows the current ping with a transfer test, and moves when it freezes', () => {
    const h = harness();
    h.stall(0);
    const probe = h.probes()[0]!;
    expect(probe).toMatchObject({ ids: ['fi', 'de', 'nl'], transferAfter: ['fi'] });
    h.result('de', 25, 5025);
    h.result('fi', 61, 5061);
    h.result('nl', 71, 5071);
    // The ping answered: the check waits for the traffic's verdict, past the silent deadline too.
    expect(outcome(h.decisions())).toEqual([]);
    expect(h.state.check).not.toBeNull();
    h.transfer('fi', 'freezes', 7300);
    expect(outcome(h.decisions())).toEqual(['switch fi>de current-silent']);
    expect(h.decisions().find((d) => d.type === 'probe-result' && d.id === 'fi')).toMatchObject({ delay: 61, transfer: 'freezes', at: T0 + 5061 });
  });

  it('a stall check stays once the transfer test passes, and does not wait for one after a silent ping', () => {
    const ok = harness();
    ok.stall(0);
    ok.result('fi', 61, 5061);
    ok.result('de', 25, 5025);
    ok.result('nl', 71, 5071);
    ok.transfer('fi', 'ok', 5400);
    expect(outcome(ok.decisions())).toEqual(['stay fi current-answered']);

    const silent = harness();
    silent.stall(0);
    silent.result('de', 25, 5025);
    silent.result('nl', 71, 5071);
    silent.result('fi', null, 5100);
    expect(outcome(silent.decisions())).toEqual(['switch fi>de current-silent']);
  });

  it('only a check started by stalled traffic asks for the transfer test', () => {
    const h = harness();
    h.checkNow(1000);
    expect(h.probes()[0]).not.toHaveProperty('transferAfter');
  });

  it('a freezing server left behind does not count its ping answers towards a return, and returns once a transfer passes', () => {
    const h = harness({ fi: 'freezes' });
    h.checkNow(1000);
    for (const [id, ms] of [['fi', 61], ['de', 25], ['nl', 71]] as const) h.result(id, ms, 1000 + ms);
    expect(h.state).toMatchObject({ current: 'de', returnCandidate: 'fi' });
    for (const at of [60_000, 120_000]) {
      h.checkNow(at);
      // Its ping is followed by a transfer test (the only way back), which freezes again.
      expect(h.probes().at(-1)).toMatchObject({ transferAfter: ['fi'] });
      for (const [id, ms] of [['de', 25], ['fi', 61], ['nl', 71]] as const) h.result(id, ms, at + ms);
      h.transfer('fi', 'freezes', at + 2500);
    }
    expect(h.state.current).toBe('de');
    expect(h.state.answerStreak.fi ?? 0).toBe(0);
    h.transfers.fi = 'ok';
    for (const at of [180_000, 240_000]) {
      h.checkNow(at);
      for (const [id, ms] of [['de', 25], ['fi', 61], ['nl', 71]] as const) h.result(id, ms, at + ms);
    }
    expect(outcome(h.decisions()).at(-1)).toBe('switch de>fi return');
  });
});
