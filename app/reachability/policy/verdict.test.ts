import { describe, expect, it } from 'vitest';
import { exitNetworkOf } from './exit-network';
import { assessNetwork, type HereResult, type NetworkAssessment } from './here';
import { reachabilityRules } from './rules';
import { deriveVerdict, type VantageObservation, type VerdictInput } from './verdict';
import { assessVantages } from './witness';

const S = 1000;
const MIN = 60 * S;
const NOW = 10_000_000;
// Monitor interval 5 min: freshness 10 min, a streak needs 3 failures over ≥ 60 s.
const rules = reachabilityRules({ intervalMs: 5 * MIN, urlTestTimeoutMs: 5 * S });
const online: NetworkAssessment = { lost: false, witnesses: 10, failing: 1, reason: null };

const ok = (agoMs: number): HereResult => ({ at: NOW - agoMs, ok: true });
const fail = (agoMs: number): HereResult => ({ at: NOW - agoMs, ok: false });
/** A streak that counts: 3 failures over 70 s, after an answer. */
const STREAK = [ok(10 * MIN + 1), fail(70 * S), fail(40 * S), fail(10 * S)];

const net = (asn: string, ip = '203.0.113.7', country = 'DE') => exitNetworkOf({ ip, asn, countryCode: country, source: 'ipapi.co' }, 'x.example');
const obs = (name: string, reached: boolean, network = net(`AS${name.charCodeAt(0)}`), agoMs = 5 * S, error?: string): VantageObservation => ({
  vantageId: name,
  vantageName: name,
  network,
  reached,
  at: NOW - agoMs,
  ...(error ? { error } : {}),
});

function verdictOf(partial: Partial<VerdictInput>) {
  return deriveVerdict(
    {
      target: { id: 'X', name: 'X' },
      here: STREAK,
      vantages: [],
      network: online,
      trustedCheckerId: null,
      rules,
      ...partial,
    },
    NOW,
  );
}

describe('deriveVerdict', () => {
  it.each([
    ['no result from here at all', { here: [] }, 'unknown', /not tested from here yet/],
    ['only results older than the freshness window (silence is not a verdict)', { here: [fail(11 * MIN), fail(12 * MIN), fail(13 * MIN)] }, 'unknown', /no result from here in the last 10 min/],
    ['the latest result answered', { here: [fail(3 * MIN), fail(2 * MIN), ok(1 * MIN)] }, 'ok', /answers from here/],
    ['a single failure never counts', { here: [ok(5 * MIN), fail(10 * S)] }, 'failing', /failed from here once; one failure means nothing/],
    ['two failures are still below the threshold', { here: [fail(70 * S), fail(10 * S)] }, 'failing', /2 times in a row.*needs 3 failures in a row over at least 60 s/],
    ['three failures within 20 s are a burst, not a streak', { here: [fail(30 * S), fail(20 * S), fail(10 * S)] }, 'failing', /3 times in a row over 20 s; not yet a verdict/],
  ] as const)('%s → %s', (_name, input, verdict, reason) => {
    const r = verdictOf({ ...input, vantages: [obs('B', true), obs('C', true)] });
    expect(r.verdict).toBe(verdict);
    expect(r.reason).toMatch(reason);
  });

  it('a streak that counts needs the outside view: without one it is unknown, and says why', () => {
    const r = verdictOf({ outsideProblem: 'no other server works from here to check it through' });
    expect(r).toMatchObject({ verdict: 'unknown', vantagePoints: [] });
    expect(r.reason).toBe('it failed from here 3 times in a row over 60 s; no other server works from here to check it through');
  });

  it('reached from two independent exit networks but not from here → blocked-here, naming both', () => {
    const r = verdictOf({ vantages: [obs('Berlin', true, net('AS3320', '203.0.113.1', 'DE')), obs('Tokyo', true, net('AS2516', '198.51.100.1', 'JP'))] });
    expect(r.verdict).toBe('blocked-here');
    expect(r.reason).toBe('reached through Berlin (AS3320, DE) and Tokyo (AS2516, JP) but it failed from here 3 times in a row over 60 s: blocked on your network');
    expect(r.vantagePoints).toEqual([
      { serverId: 'Berlin', reached: true },
      { serverId: 'Tokyo', reached: true },
    ]);
  });

  it('unreached from here and from two outside networks → down, naming them', () => {
    const r = verdictOf({ vantages: [obs('B', false, net('AS1'), 5 * S, 'timeout'), obs('C', false, net('AS2'), 4 * S, 'refused')] });
    expect(r.verdict).toBe('down');
    expect(r.reason).toMatch(/^not reached through B \(AS1, DE\) \(timeout\) and C \(AS2, DE\) \(refused\), and it failed from here .*: the server looks down$/);
  });

  it('two vantage points in the same exit network count once', () => {
    const shared = net('AS14061');
    const r = verdictOf({ vantages: [obs('Amsterdam', true, shared), obs('Singapore', true, shared)] });
    expect(r.verdict).toBe('unknown');
    expect(r.reason).toMatch(/only.*need two independent vantage points; Amsterdam and Singapore exit in one network \(AS14061, DE\), counted once/);
  });

  it('without an ASN, distinct /24 exit addresses are distinct networks and one /24 is one network', () => {
    const noAsn = (ip: string) => exitNetworkOf({ ip, source: 'cloudflare-trace' }, 'x.example');
    expect(verdictOf({ vantages: [obs('B', true, noAsn('203.0.113.5')), obs('C', true, noAsn('203.0.114.5'))] }).verdict).toBe('blocked-here');
    expect(verdictOf({ vantages: [obs('B', true, noAsn('203.0.113.5')), obs('C', true, noAsn('203.0.113.99'))] }).verdict).toBe('unknown');
  });

  it('reached through one vantage point only → unknown, said honestly', () => {
    const r = verdictOf({ vantages: [obs('B', true, net('AS1'))], outsideProblem: 'only B works from here in another exit network' });
    expect(r.verdict).toBe('unknown');
    expect(r.reason).toBe(
      'reached through B (AS1, DE) only, while it failed from here 3 times in a row over 60 s; need two independent vantage points (only B works from here in another exit network)',
    );
  });

  it('one vantage point that cannot reach the target accuses nobody: the reason names both ends of the path', () => {
    const r = verdictOf({ vantages: [obs('B', false, net('AS1'), 5 * S, 'timeout')] });
    expect(r.verdict).toBe('unknown');
    expect(r.reason).toMatch(/not reached through B \(AS1, DE\) \(timeout\) either.*the path between B and X, not which end is blocked; need two independent vantage points/);
  });

  it('vantage points that disagree (one reached, one not) → unknown, naming both', () => {
    const r = verdictOf({ vantages: [obs('B', true, net('AS1')), obs('C', false, net('AS2'))] });
    expect(r.verdict).toBe('unknown');
    expect(r.reason).toMatch(/^vantage points disagree: reached through B \(AS1, DE\), not through C \(AS2, DE\) \(the path between C and X\)/);
  });

  it('two networks reached outweigh one that did not: blocked-here, and the dissent is named', () => {
    const r = verdictOf({ vantages: [obs('B', true, net('AS1')), obs('C', true, net('AS2')), obs('D', false, net('AS3'))] });
    expect(r.verdict).toBe('blocked-here');
    expect(r.reason).toMatch(/; not reached through D \(AS3, DE\)$/);
  });

  it("the trusted checker's single vote decides, either way", () => {
    const reached = verdictOf({ trustedCheckerId: 'T', vantages: [obs('T', true, net('AS1'))] });
    expect(reached.verdict).toBe('blocked-here');
    expect(reached.reason).toMatch(/^the trusted checker T \(AS1, DE\) reaches X, but it failed from here/);
    const unreached = verdictOf({ trustedCheckerId: 'T', vantages: [obs('T', false, net('AS1'), 5 * S, 'timeout'), obs('B', true, net('AS2')), obs('C', true, net('AS3'))] });
    expect(unreached.verdict).toBe('blocked');
    expect(unreached.reason).toBe('the trusted checker T (AS1, DE) cannot reach X (timeout), and it failed from here 3 times in a row over 60 s: the address of X is blocked');
    expect(unreached.vantagePoints).toEqual([{ serverId: 'T', reached: false }]);
    // Without the mark, the same votes are a quorum for blocked-here.
    expect(verdictOf({ vantages: [obs('T', false, net('AS1')), obs('B', true, net('AS2')), obs('C', true, net('AS3'))] }).verdict).toBe('blocked-here');
  });

  it('the trusted checker is an ordinary server when it is the one failing', () => {
    const r = deriveVerdict({ target: { id: 'T', name: 'T' }, here: STREAK, vantages: [obs('B', true), obs('C', true)], network: online, trustedCheckerId: 'T', rules }, NOW);
    expect(r.verdict).toBe('blocked-here');
  });

  it("other servers' votes against the trusted checker do not count (seed 004: that means nothing)", () => {
    const input = { target: { id: 'T', name: 'T' }, here: STREAK, network: online, trustedCheckerId: 'T', rules };
    const r = deriveVerdict({ ...input, vantages: [obs('B', false, net('AS1')), obs('C', false, net('AS2'))] }, NOW);
    expect(r).toMatchObject({ verdict: 'unknown', vantagePoints: [] });
    expect(r.reason).toBe('it failed from here 3 times in a row over 60 s; T is the trusted checker: that B and C cannot reach it says nothing about it');
    // Their votes for it still count.
    expect(deriveVerdict({ ...input, vantages: [obs('B', true, net('AS1')), obs('C', true, net('AS2')), obs('D', false, net('AS3'))] }, NOW).verdict).toBe('blocked-here');
  });

  it('an unreliable vantage point (it suddenly cannot see half or more of the servers it could see) has its votes set aside', () => {
    const V = net('AS9', '192.0.2.9', 'NL');
    const broken = new Map([['V', 'V suddenly cannot reach 2 of the 4 servers it reached']]);
    const vantages = [obs('V', false, V), obs('W', false, net('AS2'))];
    expect(verdictOf({ vantages }).verdict).toBe('down');
    const r = verdictOf({ vantages, unreliableVantages: broken });
    expect(r.verdict).toBe('unknown');
    expect(r.reason).toMatch(/; V's votes are set aside: V suddenly cannot reach 2 of the 4 servers it reached$/);
    expect(r.vantagePoints).toEqual([{ serverId: 'W', reached: false }]);
  });

  it('unreliable witness: while the network looks lost nothing is blamed, whatever the vantage points said', () => {
    const lost: NetworkAssessment = { lost: true, witnesses: 8, failing: 7, reason: 'your network looks down: 7 of 8 servers that worked fail from here at once' };
    const r = verdictOf({ network: lost, vantages: [obs('B', false), obs('C', false)] });
    expect(r).toMatchObject({ verdict: 'unknown', vantagePoints: [] });
    expect(r.reason).toBe('your network looks down: 7 of 8 servers that worked fail from here at once: nothing is blamed on X');
    // A server that answers is still ok.
    expect(verdictOf({ network: lost, here: [ok(5 * S)] }).verdict).toBe('ok');
  });

  it('vantage observations older than the freshness window do not count', () => {
    const stale = [obs('B', true, net('AS1'), 11 * MIN), obs('C', true, net('AS2'), 11 * MIN)];
    expect(verdictOf({ vantages: stale }).verdict).toBe('unknown');
    expect(verdictOf({ vantages: [...stale, obs('B', true, net('AS1')), obs('C', true, net('AS2'))] }).verdict).toBe('blocked-here');
  });

  it("a vantage point's latest fresh observation is its vote", () => {
    const r = verdictOf({ vantages: [obs('B', false, net('AS1'), 60 * S), obs('B', true, net('AS1'), 5 * S), obs('C', true, net('AS2'))] });
    expect(r.verdict).toBe('blocked-here');
  });

  it('self-healing: the first answer from here turns any verdict back to ok', () => {
    const vantages = [obs('B', true, net('AS1')), obs('C', true, net('AS2'))];
    expect(verdictOf({ vantages }).verdict).toBe('blocked-here');
    expect(verdictOf({ vantages, here: [...STREAK, ok(1 * S)] }).verdict).toBe('ok');
  });
});

describe('assessNetwork (the unreliable-witness rule)', () => {
  const results = (map: Record<string, readonly HereResult[]>) => new Map(Object.entries(map));
  const worked = ok(20 * MIN);

  it.each([
    ['2 of 3 servers that worked fail at once', { a: [worked, fail(S)], b: [worked, fail(S)], c: [worked, ok(S)] }, true],
    ['half of them is enough (seed 004: half or more)', { a: [worked, fail(S)], b: [worked, fail(S)], c: [worked, ok(S)], d: [worked, ok(S)] }, true],
    ['fewer than half is not', { a: [worked, fail(S)], b: [worked, fail(S)], c: [worked, ok(S)], d: [worked, ok(S)], e: [worked, ok(S)] }, false],
    ['one of one: a single failing server is no evidence about the network', { a: [worked, fail(S)] }, false],
    ['servers that never answered are no witnesses (dead entries of a subscription)', { a: [fail(2 * S), fail(S)], b: [fail(S)], c: [worked, ok(S)], d: [worked, fail(S)] }, false],
    ['a witness needs a fresh result', { a: [worked, fail(11 * MIN)], b: [worked, fail(11 * MIN)], c: [worked, ok(S)] }, false],
  ] as const)('%s → lost: %s', (_name, map, lost) => {
    expect(assessNetwork(results(map as Record<string, readonly HereResult[]>), NOW, rules).lost).toBe(lost);
  });

  it('says how many failed, and a signal from elsewhere (Auto found the network lost) wins on its own', () => {
    const lost = assessNetwork(results({ a: [worked, fail(S)], b: [worked, fail(S)], c: [worked, ok(S)] }), NOW, rules);
    expect(lost.reason).toBe('your network looks down: 2 of 3 servers that worked fail from here at once');
    const outside = assessNetwork(results({ a: [worked, ok(S)] }), NOW, rules, 'Auto found the network lost');
    expect(outside).toMatchObject({ lost: true, reason: 'Auto found the network lost' });
  });
});

describe('assessVantages (the unreliable-witness rule for every vantage point)', () => {
  type Through = { target: string; observation: VantageObservation };
  const through = (vantage: string, target: string, reached: boolean, agoMs: number): Through => ({
    target,
    observation: obs(vantage, reached, net('AS1'), agoMs),
  });
  const byTarget = (list: Through[]) => {
    const map = new Map<string, VantageObservation[]>();
    for (const { target, observation } of list) map.set(target, [...(map.get(target) ?? []), observation]);
    return map;
  };
  const earlier = 30 * MIN;

  it.each([
    ['2 of 4 servers it reached are suddenly unreachable through it', ['a', 'b'], ['c', 'd'], true],
    ['1 of 3 is not half', ['a'], ['b', 'c'], false],
    ['one of one is no evidence', ['a'], [], false],
  ] as const)('%s → unreliable: %s', (_name, lost, still, unreliable) => {
    const list = [
      ...[...lost, ...still].map((t) => through('V', t, true, earlier)),
      ...lost.map((t) => through('V', t, false, 5 * S)),
      ...still.map((t) => through('V', t, true, 5 * S)),
    ];
    const found = assessVantages(byTarget(list), NOW, rules);
    expect(found.has('V')).toBe(unreliable);
    if (unreliable) expect(found.get('V')).toBe(`V suddenly cannot reach ${lost.length} of the ${lost.length + still.length} servers it reached`);
  });

  it('targets it never reached make no witnesses, and stale results count for nothing', () => {
    const never = [through('V', 'a', false, 5 * S), through('V', 'b', false, 5 * S), through('V', 'c', true, 5 * S)];
    expect(assessVantages(byTarget(never), NOW, rules).size).toBe(0);
    const stale = [through('V', 'a', true, earlier), through('V', 'b', true, earlier), through('V', 'a', false, 11 * MIN), through('V', 'b', false, 11 * MIN)];
    expect(assessVantages(byTarget(stale), NOW, rules).size).toBe(0);
  });
});
