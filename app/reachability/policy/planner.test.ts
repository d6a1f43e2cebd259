import { describe, expect, it } from 'vitest';
import { exitNetworkOf } from './exit-network';
import { failureStreak, type HereResult, type NetworkAssessment } from './here';
import { chooseVantages, planConfirmation, planRound, type RoundPlanInput, type VantageCandidate } from './planner';
import { reachabilityRules } from './rules';

const S = 1000;
const MIN = 60 * S;
const NOW = 50_000_000;
const rules = reachabilityRules({ intervalMs: 5 * MIN, urlTestTimeoutMs: 5 * S });
const online: NetworkAssessment = { lost: false, witnesses: 6, failing: 1, reason: null };
const lost: NetworkAssessment = { lost: true, witnesses: 6, failing: 5, reason: 'your network looks down' };

const fail = (agoS: number): HereResult => ({ at: NOW - agoS * S, ok: false });
const ok = (agoS: number): HereResult => ({ at: NOW - agoS * S, ok: true });
const TWO_FAILURES = failureStreak([ok(400), fail(40), fail(5)], NOW, rules);

let index = 0;
const cand = (id: string, asn: string | null, delay: number | null, extra: Partial<VantageCandidate> = {}): VantageCandidate => ({
  id,
  name: id,
  network: exitNetworkOf(asn ? { ip: `203.0.${index}.1`, asn, source: 'ipapi.co' } : { ip: `198.51.${index}.1`, source: 'cloudflare-trace' }, `${id}.example`),
  workingDelayMs: delay,
  index: index++,
  ...extra,
});

const target = { id: 'X', name: 'X', network: exitNetworkOf({ ip: '192.0.2.1', asn: 'AS9', source: 'ipapi.co' }, 'x.example') };

function plan(partial: Partial<RoundPlanInput>, now = NOW) {
  return planRound(
    {
      target,
      streak: TWO_FAILURES,
      network: online,
      candidates: [cand('A', 'AS1', 100), cand('B', 'AS2', 200), cand('C', 'AS3', 300)],
      unsupported: () => null,
      trustedCheckerId: null,
      lastRoundAt: null,
      roundInFlight: false,
      probeTimes: [],
      rules,
      ...partial,
    },
    now,
  );
}

const ids = (p: ReturnType<typeof plan>) => (p.kind === 'probe' ? p.vantages.map((v) => v.id) : p.kind);

describe('planRound: when', () => {
  it('not for a single failure, from the second failure in a row on', () => {
    expect(ids(plan({ streak: failureStreak([ok(400), fail(5)], NOW, rules) }))).toBe('none');
    expect(ids(plan({}))).toEqual(['A', 'B', 'C']);
  });

  it('never while the network looks lost, nor for a server that answers', () => {
    expect(plan({ network: lost })).toMatchObject({ kind: 'none', why: 'your network looks down: no vantage probes' });
    expect(ids(plan({ streak: failureStreak([fail(40), ok(5)], NOW, rules) }))).toBe('none');
  });

  it('never more often than the monitor interval per server, and not beside a round in flight', () => {
    expect(plan({ lastRoundAt: NOW - 4 * MIN })).toEqual({ kind: 'wait', until: NOW + 1 * MIN, why: 'at most one round per 5 min' });
    expect(ids(plan({ lastRoundAt: NOW - 5 * MIN }))).toEqual(['A', 'B', 'C']);
    expect(ids(plan({ roundInFlight: true }))).toBe('none');
  });

  it('only right after a failure from here: a round that falls due later re-tests from here first', () => {
    const old = failureStreak([ok(400), fail(100), fail(45)], NOW, rules);
    expect(plan({ streak: old, lastRoundAt: NOW - 6 * MIN })).toEqual({ kind: 'confirm-first', why: 'the last failure from here is 45 s old: re-test from here before asking outside' });
    const recent = failureStreak([ok(400), fail(100), fail(25)], NOW, rules);
    expect(ids(plan({ streak: recent, lastRoundAt: NOW - 6 * MIN }))).toEqual(['A', 'B', 'C']);
  });

  it('the budget across all servers: at most 30 vantage probes per interval; a partial round takes what is left', () => {
    const spent = (n: number) => Array.from({ length: n }, (_, i) => NOW - 4 * MIN + i * S);
    expect(plan({ probeTimes: spent(30) })).toMatchObject({ kind: 'wait', until: NOW + 1 * MIN, why: 'probe budget spent: 30 vantage probes in the last 5 min' });
    expect(ids(plan({ probeTimes: spent(29) }))).toEqual(['A']);
    // Probes older than the window are forgotten.
    expect(ids(plan({ probeTimes: spent(30).map((t) => t - 2 * MIN) }))).toEqual(['A', 'B', 'C']);
  });
});

describe('chooseVantages: whom', () => {
  it('at most 3, one per exit network, ASN-known networks first, fastest first', () => {
    index = 0;
    const candidates = [
      cand('slowAS1', 'AS1', 400),
      cand('fastAS1', 'AS1', 50),
      cand('noAsn', null, 10),
      cand('AS2', 'AS2', 300),
      cand('AS3', 'AS3', 90),
      cand('AS4', 'AS4', 500),
    ];
    const choice = chooseVantages(target, candidates, null, rules);
    expect(choice.chosen.map((c) => c.id)).toEqual(['fastAS1', 'AS3', 'AS2']);
    expect(choice.problem).toBeNull();
  });

  it('only working servers (latest fresh result answered), never the target itself nor its own exit network', () => {
    const candidates = [cand('X', 'AS1', 10), cand('dead', 'AS2', null), cand('sameNet', 'AS9', 20), cand('B', 'AS3', 30)];
    const choice = chooseVantages(target, candidates, null, rules);
    expect(choice.chosen.map((c) => c.id)).toEqual(['B']);
    expect(choice.problem).toBe('only B works from here in another exit network');
  });

  it('says why nobody can be asked', () => {
    expect(chooseVantages(target, [cand('dead', 'AS2', null)], null, rules).problem).toBe('no other server works from here to check it through');
    expect(chooseVantages(target, [cand('sameNet', 'AS9', 20)], null, rules).problem).toBe('every other working server exits in the same network as X (AS9)');
    const why = 'not supported by v2ray 4.34.0: chaining a server over WebSocket needs v2ray ≥ 4.35 or Xray';
    expect(chooseVantages(target, [cand('B', 'AS2', 20)], null, rules, () => why).problem).toBe(why);
  });

  it('the trusted checker alone when it works (its single vote decides); the usual choice when it does not', () => {
    const candidates = [cand('A', 'AS1', 100), cand('T', 'AS2', 900), cand('C', 'AS3', 300)];
    expect(chooseVantages(target, candidates, 'T', rules).chosen.map((c) => c.id)).toEqual(['T']);
    const silentT = [cand('A', 'AS1', 100), cand('T', 'AS2', null), cand('C', 'AS3', 300)];
    expect(chooseVantages(target, silentT, 'T', rules).chosen.map((c) => c.id)).toEqual(['A', 'C']);
  });
});

describe('planConfirmation', () => {
  const one = failureStreak([ok(400), fail(10)], NOW, rules);
  it('re-tests from here half a streak span after the last failure', () => {
    expect(planConfirmation(one, online, false, rules, NOW)).toEqual({ kind: 'at', at: NOW - 10 * S + 30 * S });
    expect(planConfirmation(one, online, false, rules, NOW + 20 * S)).toEqual({ kind: 'now' });
  });

  it('not while one is in flight, not once the streak counts, not while the network looks lost, not for an answer', () => {
    expect(planConfirmation(one, online, true, rules, NOW + 20 * S).kind).toBe('none');
    expect(planConfirmation(failureStreak([fail(70), fail(40), fail(5)], NOW, rules), online, false, rules, NOW).kind).toBe('none');
    expect(planConfirmation(one, lost, false, rules, NOW + 20 * S).kind).toBe('none');
    expect(planConfirmation(failureStreak([ok(5)], NOW, rules), online, false, rules, NOW).kind).toBe('none');
  });
});
