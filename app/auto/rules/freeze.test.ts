/**
 * A freeze is a trigger (issue 29): DPI lets each connection carry its first 16 KB and freezes it,
 * so bytes keep coming and the stall trigger never holds. The current server's transfer test
 * saying `freezes` (or `throttled`) starts a check at once; that check needs a fresh transfer
 * result that passes from its switch target, runs the transfer test on candidates without one,
 * widens when none passes; elsewhere a server whose transfer passed ranks above an untested one;
 * and Auto never returns to a freezing server until its transfer passes again.
 */
import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../../shared/domain/auto';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import { queueOrder } from '../policy/queue';
import type { AutoCommand } from '../policy/types';
import { type TransferSeen, worldOf } from '../policy/world';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';

const ids = ['a1', 'a2', 'a3', 'a4'];
const HISTORY = { a1: delays([60, 61, 62], { now: T0 }), a2: delays([20, 21, 22], { now: T0 }), a3: delays([40, 41, 42], { now: T0 }), a4: delays([80, 81, 82], { now: T0 }) };
const seen = (verdict: TransferVerdict, atMs: number, bytes = verdict === 'freezes' ? 16_384 : 65_536): TransferSeen => ({ verdict, at: T0 + atMs, bytes, fromCache: false });

function harness(transfers: Record<string, TransferVerdict | TransferSeen> = {}, serverIds = ids, measurements: WorldMeasurements = HISTORY) {
  const run = runReducer({ subscriptions: [{ id: 'A', serverIds }], measurements, transfers });
  run.send({ type: 'tunnel-connected', serverId: serverIds[0]! }, 0);
  return {
    run,
    transfers,
    get state() {
      return run.state;
    },
    /** The monitor wrote a transfer result of `id` (its verdict also becomes the world's latest). */
    transferSeen(id: string, verdict: TransferVerdict, atMs: number, bytes?: number) {
      const result = seen(verdict, atMs, bytes);
      transfers[id] = result;
      return run.send({ type: 'transfer-seen', serverId: id, result }, atMs);
    },
    result: (id: string, delayMs: number | null, atMs: number) => run.send({ type: 'probe-result', checkId: run.lastProbeCheckId(), serverId: id, delayMs }, atMs),
    /** A check's transfer test of `id` ended: its result is the world's latest, then the check hears it. */
    transfer(id: string, verdict: TransferVerdict, atMs: number) {
      transfers[id] = seen(verdict, atMs);
      return run.send({ type: 'transfer-result', checkId: run.lastProbeCheckId(), serverId: id, verdict }, atMs);
    },
    probes: () => run.commands.flatMap((c) => (c.kind === 'probe' ? [c] : [])),
    decisions: (): AutoDecision[] => run.decisions(),
  };
}
type WorldMeasurements = Parameters<typeof runReducer>[0]['measurements'];

const outcome = (d: AutoDecision[]) =>
  d.flatMap((x) => (x.type === 'switch' ? [`switch ${x.from}>${x.to} ${x.reason}`] : x.type === 'stay' ? [`stay ${x.id} ${x.reason}`] : []));
const checks = (d: AutoDecision[]) => d.flatMap((x) => (x.type === 'check' ? [`${x.trigger} ${x.probe.join(',')}`] : []));

describe('a freeze verdict on the current server triggers a check', () => {
  it.each([
    // case, the transfer result, whether a check starts at once
    ['freezes', 'a1', 'freezes', true],
    ['throttled below the floor', 'a1', 'throttled', true],
    ['a passing transfer', 'a1', 'ok', false],
    ['a transfer that could not be made', 'a1', 'failed', false],
    ['another server freezing', 'a2', 'freezes', false],
  ] as const)('%s', (_case, id, verdict, starts) => {
    const h = harness();
    h.transferSeen(id, verdict, 3000);
    expect(checks(h.decisions())).toEqual(starts ? ['freeze a1,a2,a3,a4'] : []);
  });

  it('a response that never started is no freeze: the server is silent, which the stall and silence rules answer', () => {
    const h = harness();
    h.transferSeen('a1', 'freezes', 3000, 0);
    expect(checks(h.decisions())).toEqual([]);
  });

  it('the check line says what the transfer saw: "traffic freezes after 16 KB on a1"', () => {
    const h = harness();
    h.transferSeen('a1', 'freezes', 3000, 16_200);
    expect(h.decisions()[0]).toMatchObject({ type: 'check', trigger: 'freeze', at: T0 + 3000, transfer: { server: 'a1', verdict: 'freezes', bytes: 16_200 } });
  });

  it('the same result heard twice (the monitor and the test Auto asked for) starts one check', () => {
    const h = harness();
    const result = seen('freezes', 3000);
    h.transfers.a1 = result;
    h.run.send({ type: 'transfer-seen', serverId: 'a1', result }, 3000);
    for (const [id, ms] of [['a1', 61], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 3000 + ms);
    for (const id of ['a2', 'a3', 'a4']) h.transfer(id, 'freezes', 5500);
    h.run.send({ type: 'transfer-seen', serverId: 'a1', result }, 5600);
    h.run.send({ type: 'wake' }, 30_000);
    expect(checks(h.decisions())).toEqual(['freeze a1,a2,a3,a4']);
  });

  it('a freeze during the quiet after a switch starts its check when the quiet ends', () => {
    const h = harness();
    h.run.send({ type: 'check-now' }, 1000);
    for (const [id, ms] of [['a1', null], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 1100);
    expect(h.state.current).toBe('a2');
    const commands = h.transferSeen('a2', 'freezes', 2000);
    expect(checks(h.decisions())).toEqual(['user a1,a2,a3,a4']);
    expect(commands).toContainEqual({ kind: 'wake', at: T0 + 1100 + 5000 });
    h.run.send({ type: 'wake' }, 6100);
    expect(checks(h.decisions()).at(-1)).toMatch(/^freeze a2,/);
  });
});

describe('a freeze check: no freezing target', () => {
  it('runs the transfer test on the candidates that have no fresh result (15 s), not only the ping', () => {
    const h = harness({ a3: seen('ok', -10_000), a4: seen('ok', -20_000) });
    h.transferSeen('a1', 'freezes', 5000);
    // a3's result is 15 s old at 5 s: fresh; a4's is 25 s old: retested; a2 has none.
    expect(h.probes()[0]).toMatchObject({ ids: ['a1', 'a3', 'a4', 'a2'], transferAfter: ['a4', 'a2'] });
  });

  it.each([
    // case, what the candidates' transfers find, the outcome
    ['the fastest freezes too: the next that passes', { a2: 'freezes', a3: 'ok', a4: 'ok' }, 'switch a1>a3 current-silent'],
    ['only the slowest passes', { a2: 'freezes', a3: 'freezes', a4: 'ok' }, 'switch a1>a4 current-silent'],
    ['throttled is no freeze: it may be the target after a freeze', { a2: 'throttled', a3: 'freezes', a4: 'freezes' }, 'switch a1>a2 current-silent'],
    ['a transfer that could not be made is no pass', { a2: 'failed', a3: 'freezes', a4: 'ok' }, 'switch a1>a4 current-silent'],
  ] as const)('%s', (_case, found, expected) => {
    const h = harness();
    h.transferSeen('a1', 'freezes', 5000);
    for (const [id, ms] of [['a1', 61], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 5000 + ms);
    for (const [id, verdict] of Object.entries(found)) h.transfer(id, verdict, 7500);
    expect(outcome(h.decisions())).toEqual([expected]);
  });

  it('after a throttled current server only a full-speed transfer is a target', () => {
    const h = harness();
    h.transferSeen('a1', 'throttled', 5000, 65_536);
    for (const [id, ms] of [['a1', 61], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 5000 + ms);
    h.transfer('a2', 'throttled', 7000);
    h.transfer('a3', 'ok', 7100);
    h.transfer('a4', 'freezes', 7600);
    expect(outcome(h.decisions())).toEqual(['switch a1>a3 current-silent']);
  });

  it('a fresh passing result counts at the ping: the switch does not wait for the others’ transfer tests once none could rank better', () => {
    const h = harness({ a2: seen('ok', 1000) });
    h.transferSeen('a1', 'freezes', 5000);
    h.result('a2', 21, 5021);
    h.result('a1', 61, 5061);
    // a3 and a4 answered their pings but their transfers still run; a2 is better than both by S'.
    h.result('a3', 41, 5041);
    h.result('a4', 81, 5081);
    expect(outcome(h.decisions())).toEqual(['switch a1>a2 current-silent']);
  });

  it('the current server counts again if its own transfer passes meanwhile: stay', () => {
    const h = harness();
    h.transferSeen('a1', 'freezes', 5000);
    h.transfers.a1 = seen('ok', 5050);
    for (const [id, ms] of [['a1', 61], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 5000 + ms);
    for (const id of ['a2', 'a3', 'a4']) h.transfer(id, 'ok', 5500);
    expect(outcome(h.decisions())).toEqual(['stay a1 current-answered']);
  });

  it('where none passes, widens to the rest of the subscription (up to 30), then asks nobody else and stays', () => {
    const many = Array.from({ length: 14 }, (_, i) => `s${i + 1}`);
    const h = harness({}, many, Object.fromEntries(many.map((id, i) => [id, delays([20 + i, 20 + i, 20 + i], { now: T0 })])));
    h.transferSeen('s1', 'freezes', 5000);
    const first = h.probes()[0]!;
    expect(first.ids).toHaveLength(10);
    for (const id of first.ids) h.result(id, 30, 5030);
    for (const id of first.ids.slice(1)) h.transfer(id, 'freezes', 7500);
    const second = h.probes()[1]!;
    expect(second).toMatchObject({ checkId: first.checkId, purpose: 'widened', ids: many.slice(10), transferAfter: many.slice(10) });
    for (const id of second.ids) h.result(id, 30, 7530);
    for (const id of second.ids.slice(0, 3)) h.transfer(id, 'freezes', 9800);
    h.transfer('s14', 'ok', 9900);
    expect(outcome(h.decisions())).toEqual(['switch s1>s14 current-silent']);
    expect(checks(h.decisions())).toEqual([`freeze ${first.ids.join(',')}`, `widened ${many.slice(10).join(',')}`]);
  });

  it('when nothing passes anywhere: stays, records the pings (the network was there), and waits 5 min before checking the same freeze again', () => {
    const h = harness();
    h.transferSeen('a1', 'freezes', 5000);
    for (const [id, ms] of [['a1', 61], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 5000 + ms);
    for (const id of ['a2', 'a3', 'a4']) h.transfer(id, 'freezes', 7500);
    expect(outcome(h.decisions())).toEqual(['stay a1 nothing-passes']);
    expect(h.run.commands.filter((c) => c.kind === 'record')).toHaveLength(1);
    h.transferSeen('a1', 'freezes', 70_000);
    expect(checks(h.decisions())).toHaveLength(1);
    h.run.send({ type: 'wake' }, 7500 + 300_000);
    expect(checks(h.decisions())).toHaveLength(2);
  });

  it('neighbours: a freeze check that finds nothing in its own subscription takes a neighbour whose transfer passes at once', () => {
    const run = runReducer({
      subscriptions: [
        { id: 'A', serverIds: ['a1', 'a2'] },
        { id: 'B', serverIds: ['b1', 'b2'] },
      ],
      measurements: { a1: delays([60, 61], { now: T0 }), a2: delays([20, 21], { now: T0 }), b1: delays([30, 31], { now: T0 }), b2: delays([40, 41], { now: T0 }) },
      transfers: {},
    });
    run.send({ type: 'tunnel-connected', serverId: 'a1' }, 0);
    run.send({ type: 'transfer-seen', serverId: 'a1', result: seen('freezes', 5000) }, 5000);
    const checkId = run.lastProbeCheckId();
    run.send({ type: 'probe-result', checkId, serverId: 'a1', delayMs: 61 }, 5061);
    run.send({ type: 'probe-result', checkId, serverId: 'a2', delayMs: 21 }, 5021);
    run.send({ type: 'transfer-result', checkId, serverId: 'a2', verdict: 'freezes' }, 7400);
    const neighbours = run.commands.filter((c): c is Extract<AutoCommand, { kind: 'probe' }> => c.kind === 'probe').at(-1)!;
    expect(neighbours).toMatchObject({ purpose: 'neighbours', ids: ['b1', 'b2'], transferAfter: ['b1', 'b2'] });
    run.send({ type: 'probe-result', checkId, serverId: 'b1', delayMs: 31 }, 7431);
    run.send({ type: 'probe-result', checkId, serverId: 'b2', delayMs: 41 }, 7441);
    run.send({ type: 'transfer-result', checkId, serverId: 'b1', verdict: 'freezes' }, 9700);
    run.send({ type: 'transfer-result', checkId, serverId: 'b2', verdict: 'ok' }, 9800);
    expect(outcome(run.decisions())).toEqual(['switch a1>b2 neighbour-subscription']);
  });
});

describe('untested ranks below passed', () => {
  it.each([
    // case, a3's transfer, the target
    ['a fresh pass (15 s) beats a faster server never transfer-tested', seen('ok', -13_000), 'a3'],
    ['a throttled one passes too', seen('throttled', -13_000), 'a3'],
    ['a pass older than 15 s is no longer a reason', seen('ok', -15_000), 'a2'],
  ] as const)('an ordinary check: %s', (_case, a3, target) => {
    const h = harness({ a3 });
    h.run.send({ type: 'check-now' }, 1000);
    for (const [id, ms] of [['a1', null], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 1100);
    expect(outcome(h.decisions())).toEqual([`switch a1>${target} current-silent`]);
  });

  it.each([
    // case, transfers, queue
    ['no transfer results: by score', {}, ['a2', 'a3', 'a1', 'a4']],
    ['passed first, then untested, each by score', { a4: 'ok', a1: 'throttled' }, ['a1', 'a4', 'a2', 'a3']],
    ['a freezing server after every untested one', { a2: 'freezes', a4: 'ok' }, ['a4', 'a3', 'a1', 'a2']],
    ['a transfer that failed is no result', { a2: 'failed', a4: 'ok' }, ['a4', 'a2', 'a3', 'a1']],
  ] as const)('the queue: %s', (_case, transfers, expected) => {
    const world = worldOf({ subscriptions: [{ id: 'A', serverIds: ids }], measurements: HISTORY, transfers: { ...transfers } });
    expect(queueOrder(world, ids, T0)).toEqual(expected);
  });
});

describe('a transfer test that got no byte saw a silent server, not a freezing one', () => {
  // a2's latest transfer ran 30 s ago, after its last answer (HISTORY's last is a minute old).
  it.each([
    // case, a2's latest transfer, whether the check moves to a2, its only answering candidate
    ['no byte came (it was blackholed while the test ran): its answer now counts', seen('freezes', -30_000, 0), true],
    ['DPI froze it after 16 KB: its answer still counts as none', seen('freezes', -30_000, 16_384), false],
  ] as const)('a check: %s', (_case, a2, taken) => {
    const h = harness({ a2 });
    h.run.send({ type: 'check-now' }, 1000);
    for (const [id, ms] of [['a1', null], ['a2', 21], ['a3', null], ['a4', null]] as const) h.result(id, ms, 1100);
    expect(outcome(h.decisions()).filter((l) => l.startsWith('switch'))).toEqual(taken ? ['switch a1>a2 current-silent'] : []);
  });

  it.each([
    // case, a2's measurements, the queue
    ['no ping answered since: it sinks below every server that may answer', HISTORY.a2, ['a3', 'a1', 'a4', 'a2']],
    ['a ping answered since: back in its place', [...HISTORY.a2, { at: T0 - 10_000, method: 'url' as const, delayMs: 21 }], ['a2', 'a3', 'a1', 'a4']],
  ])('the queue: %s', (_case, a2, expected) => {
    const world = worldOf({ subscriptions: [{ id: 'A', serverIds: ids }], measurements: { ...HISTORY, a2 }, transfers: { a2: seen('freezes', -30_000, 0) } });
    expect(queueOrder(world, ids, T0)).toEqual(expected);
  });
});

describe('never back to a freezing server', () => {
  it('a return candidate whose transfer froze has its ping followed by a transfer test, and returns only after passing twice', () => {
    const h = harness({ a1: 'freezes' });
    h.run.send({ type: 'check-now' }, 1000);
    for (const [id, ms] of [['a1', 61], ['a2', 21], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, 1000 + ms);
    expect(h.state).toMatchObject({ current: 'a2', returnCandidate: 'a1' });
    const round = (at: number, verdict: TransferVerdict | null) => {
      h.run.send({ type: 'check-now' }, at);
      const probe = h.probes().at(-1)!;
      if (verdict === null) expect(probe).not.toHaveProperty('transferAfter');
      else expect(probe).toMatchObject({ transferAfter: ['a1'] });
      for (const [id, ms] of [['a2', 21], ['a1', 61], ['a3', 41], ['a4', 81]] as const) h.result(id, ms, at + ms);
      if (verdict !== null) h.transfer('a1', verdict, at + 2500);
    };
    round(60_000, 'freezes');
    round(120_000, 'freezes');
    expect(h.state).toMatchObject({ current: 'a2', answerStreak: { a1: 0 } });
    round(180_000, 'ok');
    expect(h.state.current).toBe('a2');
    // Its latest transfer passes now: its next ping counts as it is, the second answer in a row.
    round(240_000, null);
    expect(outcome(h.decisions()).at(-1)).toBe('switch a2>a1 return');
  });
});
