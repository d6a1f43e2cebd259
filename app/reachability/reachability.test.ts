import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../shared/domain/measurement';
import { queueOrder } from '../auto/policy/queue';
import { worldOf } from '../auto/policy/world';
import { reachabilityWorld, type WorldServer } from './testing/world';

const S = 1000;
const INTERVAL = 60 * S;
// Four servers, four exit networks.
const FOUR: WorldServer[] = [
  { id: 'A', asn: 'AS1', country: 'FI' },
  { id: 'B', asn: 'AS2', country: 'NL' },
  { id: 'C', asn: 'AS3', country: 'JP' },
  { id: 'D', asn: 'AS4', country: 'US' },
];

async function started(servers: WorldServer[] = FOUR, options: Partial<Parameters<typeof reachabilityWorld>[0]> = {}) {
  const w = reachabilityWorld({ servers, ...options });
  await w.start();
  // The first cycle and the IP lookups through every server.
  await w.clock.advance(10 * S);
  for (const s of servers) expect(w.runtime.verdict(s.id)).toBe('ok');
  return w;
}

const roundsOf = (times: number[]) => [...new Set(times)].length;

describe('reachability runtime (monitor + fake vantage prober, fake clock)', () => {
  it('a server blocked on the user network is named blocked-here within two monitor intervals, naming the vantage points', async () => {
    const w = await started();
    const faultAt = w.elapsed();
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);

    const reach = w.runtime.reachability('A');
    expect(reach?.verdict).toBe('blocked-here');
    expect(reach?.reason).toMatch(/^reached through B \(AS2 network, NL\), C \(AS3 network, JP\) and D \(AS4 network, US\) but it failed from here \d times in a row over \d+ s: blocked on your network$/);
    expect(reach?.vantagePoints.map((v) => [v.serverId, v.reached])).toEqual([
      ['B', true],
      ['C', true],
      ['D', true],
    ]);
    // failing first (one failure means nothing), then blocked-here once the streak counts.
    const timeline = w.timeline('A');
    expect(timeline.map((l) => l.split(' ').pop())).toEqual(['failing', 'blocked-here']);
    const blockedAt = Number.parseFloat((timeline[1] as string).split(' ')[0] as string) * S;
    expect(blockedAt - faultAt).toBeLessThanOrEqual(2 * INTERVAL);

    // The others were never blamed, and the vantage points were asked once per interval at most.
    for (const id of ['B', 'C', 'D']) expect(w.timeline(id)).toEqual([]);
    const probes = w.vantages.probesOf('A');
    expect(probes.slice(0, 3).map((p) => p.vantage).sort()).toEqual(['B', 'C', 'D']);

    const lines = w.reachabilityLines();
    expect(lines.some((l) => /reachability: A is failing: failed from here once; one failure means nothing/.test(l))).toBe(true);
    expect(lines.some((l) => /reachability: A keeps failing from here \(2 in a row\): asking B \(AS2 network, NL\), C \(AS3 network, JP\), D \(AS4 network, US\)/.test(l))).toBe(true);
    expect(lines.some((l) => /reachability: probe of A through B \(AS2 network, NL\): reached in 300 ms/.test(l))).toBe(true);
    expect(lines.some((l) => /reachability: A is blocked here: reached through B .* \[spent: 3 vantage probe\(s\) in 1 round\(s\), 2 confirmation\(s\) from here, \d+ s since the first failure\]/.test(l))).toBe(true);

    const budget = w.runtime.budget().verdicts.find((b) => b.serverId === 'A' && b.verdict === 'blocked-here');
    expect(budget).toMatchObject({ vantageProbes: 3, rounds: 1, confirmations: 2, inconclusiveProbes: 0 });
  });

  it('a server refused for everyone is down; after the fault is lifted it is ok again without any action', async () => {
    const w = await started();
    w.set('B', 'down');
    await w.clock.advance(2 * INTERVAL);
    expect(w.runtime.reachability('B')).toMatchObject({ verdict: 'down' });
    expect(w.runtime.reachability('B')?.reason).toMatch(/^not reached through A \(AS1 network, FI\) \(connection refused\), C .* and D .*, and it failed from here \d times in a row over .*: the server looks down$/);

    w.set('B', 'up');
    const vantageProbes = w.vantages.probesOf('B').length;
    await w.clock.advance(INTERVAL + 10 * S);
    expect(w.runtime.reachability('B')).toMatchObject({ verdict: 'ok', reason: 'answers from here', vantagePoints: [] });
    expect(w.timeline('B').map((l) => l.split(' ').pop())).toEqual(['failing', 'down', 'ok']);
    // Healed by the monitor's own next test: nothing more was asked of the vantage points.
    await w.clock.advance(3 * INTERVAL);
    expect(w.vantages.probesOf('B').length).toBe(vantageProbes);
  });

  it('a single failure never counts: one blink is confirmed from here, answers, and nobody is asked', async () => {
    const w = await started();
    w.prober.queue('C', { silent: true });
    await w.clock.advance(3 * INTERVAL);
    expect(w.timeline('C').map((l) => l.split(' ').pop())).toEqual(['failing', 'ok']);
    expect(w.vantages.calls).toEqual([]);
    expect(w.reachabilityLines().some((l) => /C re-tested from here after 1 failure\(s\) in a row: answered in 100 ms/.test(l))).toBe(true);
  });

  it('a confirmation from here that never returns is given up at its own deadline and made again, never left hanging', async () => {
    const asked: number[] = [];
    const w = reachabilityWorld({ servers: FOUR, here: { probe: () => (asked.push(w.elapsed()), new Promise(() => undefined)) } });
    await w.start();
    await w.clock.advance(10 * S);
    w.prober.queue('C', { silent: true });
    await w.clock.advance(INTERVAL + 30 * S);
    // One at a time, each given up after the URL-test timeout (5 s) and 5 s of grace.
    expect(asked.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < asked.length; i++) expect((asked[i] as number) - (asked[i - 1] as number)).toBe(10 * S);
    const givenUp = w.reachabilityLines().filter((l) => l.endsWith('C re-tested from here after 1 failure(s) in a row: the test could not run (no result within 10 s)'));
    expect(givenUp).toHaveLength(asked.length - 1);
    // A later blink is re-tested again: nothing was left marked as under way.
    await w.clock.advance(INTERVAL);
    expect(w.runtime.verdict('C')).toBe('ok');
    const before = asked.length;
    w.prober.queue('C', { silent: true });
    await w.clock.advance(INTERVAL + 20 * S);
    expect(asked.length).toBeGreaterThan(before);
  });

  it('with only one other working server the verdict is unknown, and says why', async () => {
    const w = await started([FOUR[0] as WorldServer, FOUR[1] as WorldServer]);
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    const reach = w.runtime.reachability('A');
    expect(reach?.verdict).toBe('unknown');
    expect(reach?.reason).toMatch(/^reached through B \(AS2 network, NL\) only, while it failed from here \d times in a row over \d+ s; need two independent vantage points \(only B works from here in another exit network\)$/);
    expect(w.runtime.verdict('B')).toBe('ok');
  });

  it('two vantage points in one exit network count once, and only one of them is asked', async () => {
    // Dead never worked: no vantage point, and no witness (with it failing too, 2 of the 4 that
    // worked would fail at once and the network would look lost).
    const w = reachabilityWorld({
      servers: [
        { id: 'A', asn: 'AS1' },
        { id: 'Amsterdam', asn: 'AS14061', country: 'NL' },
        { id: 'Singapore', asn: 'AS14061', country: 'SG' },
        { id: 'Dead', asn: 'AS5' },
      ],
    });
    w.set('Dead', 'down');
    await w.start();
    await w.clock.advance(2 * INTERVAL);
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    expect(w.runtime.verdict('A')).toBe('unknown');
    expect(w.runtime.reachability('A')?.reason).toMatch(/only Amsterdam works from here in another exit network/);
    const rounds = w.vantages.probesOf('A');
    expect(rounds.length).toBeGreaterThan(0);
    expect(new Set(rounds.map((p) => p.vantage))).toEqual(new Set(['Amsterdam']));
  });

  it("the trusted checker's single vote suffices: one probe per verdict; a server it cannot reach has its address called blocked", async () => {
    // Five servers, so two failing at once are fewer than half of those that worked.
    const w = await started([...FOUR, { id: 'E', asn: 'AS5', country: 'SE' }], { trustedCheckerId: 'C' });
    w.set('A', 'blocked-here');
    w.set('D', 'down');
    await w.clock.advance(2 * INTERVAL);
    expect(w.runtime.reachability('A')).toMatchObject({ verdict: 'blocked-here', vantagePoints: [{ serverId: 'C', reached: true }] });
    expect(w.runtime.reachability('A')?.reason).toMatch(/^the trusted checker C \(AS3 network, JP\) reaches A, but it failed from here/);
    expect(w.runtime.reachability('D')).toMatchObject({ verdict: 'blocked', vantagePoints: [{ serverId: 'C', reached: false }] });
    expect(w.runtime.reachability('D')?.reason).toMatch(/^the trusted checker C \(AS3 network, JP\) cannot reach D .*: the address of D is blocked$/);
    const spent = w.runtime.budget().verdicts.filter((b) => b.verdict !== 'failing').map((b) => [b.serverId, b.verdict, b.vantageProbes]);
    expect(spent.sort()).toEqual([
      ['A', 'blocked-here', 1],
      ['D', 'blocked', 1],
    ]);
  });

  it('unreliable witness: when the network is lost nothing is blamed and no vantage point is asked; it heals when the network returns', async () => {
    const w = await started();
    w.setOffline(true);
    await w.clock.advance(4 * INTERVAL);
    for (const id of ['A', 'B', 'C', 'D']) {
      expect(w.changes.filter((c) => c.serverId === id).map((c) => c.current.verdict)).not.toContain('down');
      expect(w.changes.filter((c) => c.serverId === id).map((c) => c.current.verdict)).not.toContain('blocked-here');
      expect(w.runtime.verdict(id)).toBe('unknown');
    }
    expect(w.runtime.reachability('A')?.reason).toBe('your network looks down: 4 of 4 servers that worked fail from here at once: nothing is blamed on A');
    expect(w.vantages.calls.filter((c) => !c.result?.inconclusive)).toEqual([]);
    const lostLines = w.reachabilityLines().filter((l) => l.includes('no server is blamed while it lasts'));
    expect(lostLines).toHaveLength(1);

    w.setOffline(false);
    await w.clock.advance(INTERVAL + 10 * S);
    for (const id of ['A', 'B', 'C', 'D']) expect(w.runtime.verdict(id)).toBe('ok');
    expect(w.reachabilityLines().some((l) => l.includes('your network answers again'))).toBe(true);
  });

  it('unreliable witness: a trusted checker that suddenly cannot see the servers it saw has its votes set aside, and brands no server blocked', async () => {
    // Eight servers, so three failing from here at once are fewer than half: the user's network is fine.
    const EIGHT: WorldServer[] = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].map((id, i) => ({ id, asn: `AS${i + 1}` }));
    const w = await started(EIGHT, { trustedCheckerId: 'F' });
    w.set('B', 'blocked-here');
    w.set('C', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    for (const id of ['B', 'C']) expect(w.runtime.reachability(id)).toMatchObject({ verdict: 'blocked-here', vantagePoints: [{ serverId: 'F', reached: true }] });

    // F still answers from here, but its own way out breaks: it reaches nothing any more. Its
    // first "cannot reach" cannot yet be told from a real block; once two of the two servers it
    // reached fail through it, F is the broken one.
    w.vantages.blind.add('F');
    await w.clock.advance(INTERVAL);
    const setAside = "F's votes are set aside: F suddenly cannot reach 2 of the 2 servers it reached";
    const since = w.clock.now() - w.t0;
    for (const id of ['B', 'C']) {
      expect(w.runtime.verdict(id)).toBe('unknown');
      expect(w.runtime.reachability(id)?.reason).toContain(setAside);
    }
    // It stays set aside after its last success ages out of the freshness window (2 min), and a
    // server that starts failing later is not called blocked on F's word either.
    w.set('D', 'blocked-here');
    await w.clock.advance(4 * INTERVAL);
    for (const id of ['B', 'C', 'D']) {
      expect(w.changes.filter((c) => c.serverId === id && c.at > since).map((c) => c.current.verdict)).not.toContain('blocked');
      expect(w.runtime.verdict(id)).toBe('unknown');
      expect(w.runtime.reachability(id)?.reason).toContain(setAside);
    }
    expect(w.vantages.probesOf('D').filter((p) => p.vantage === 'F').length).toBeGreaterThan(0);

    // F sees again: its votes count again.
    w.vantages.blind.delete('F');
    await w.clock.advance(2 * INTERVAL);
    for (const id of ['B', 'C', 'D']) expect(w.runtime.reachability(id)).toMatchObject({ verdict: 'blocked-here', vantagePoints: [{ serverId: 'F', reached: true }] });
  });

  it('a network-lost signal from elsewhere (Auto) is enough on its own', async () => {
    let lost: string | null = null;
    const w = await started(FOUR, { networkLost: () => lost });
    lost = 'Auto found the network lost';
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    expect(w.runtime.reachability('A')).toMatchObject({ verdict: 'unknown', reason: 'Auto found the network lost: nothing is blamed on A' });
    expect(w.vantages.calls).toEqual([]);
  });

  it('a long block: one round per interval (3 probes each), the verdict never flickers; lifted → ok', async () => {
    const w = await started();
    w.set('A', 'blocked-here');
    await w.clock.advance(10 * INTERVAL);
    expect(w.timeline('A').map((l) => l.split(' ').pop())).toEqual(['failing', 'blocked-here']);
    const starts = w.vantages.probesOf('A').map((p) => p.at);
    const rounds = [...new Set(starts)].sort((a, b) => a - b);
    for (let i = 1; i < rounds.length; i++) expect((rounds[i] as number) - (rounds[i - 1] as number)).toBeGreaterThanOrEqual(INTERVAL);
    for (const at of rounds) expect(starts.filter((t) => t === at).length).toBeLessThanOrEqual(3);
    expect(roundsOf(starts)).toBeLessThanOrEqual(10);
    w.set('A', 'up');
    await w.clock.advance(INTERVAL + 10 * S);
    expect(w.runtime.verdict('A')).toBe('ok');
  });

  it('freshness: when testing stops (idle) nothing more is probed and the verdict does not stick, it becomes unknown', async () => {
    const w = await started();
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    expect(w.runtime.verdict('A')).toBe('blocked-here');
    await w.monitor.stop();
    const spent = { vantage: w.vantages.calls.length, here: w.prober.probesOf('A').length };
    await w.clock.advance(2 * INTERVAL + S);
    expect(w.runtime.reachability('A')).toMatchObject({ verdict: 'unknown', reason: 'no result from here in the last 2 min: nothing to judge' });
    // An idle device is not touched: no confirmation from here, no vantage probe.
    expect({ vantage: w.vantages.calls.length, here: w.prober.probesOf('A').length }).toEqual(spent);
  });

  it('a target the core cannot chain: unknown, with the core\'s reason', async () => {
    const w = reachabilityWorld({ servers: FOUR });
    w.vantages.unchainable.set('A', 'not supported by v2ray 4.34.0: chaining a server over WebSocket needs v2ray ≥ 4.35 or Xray');
    await w.start();
    await w.clock.advance(10 * S);
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    expect(w.runtime.reachability('A')?.reason).toMatch(/failed from here .*; not supported by v2ray 4\.34\.0: chaining a server over WebSocket/);
    expect(w.vantages.calls).toEqual([]);
  });

  it("Auto's queue sinks a blocked-here server after the scored ones (and the verdict never removes it)", async () => {
    const w = await started();
    w.set('A', 'blocked-here');
    await w.clock.advance(2 * INTERVAL);
    const now = w.clock.now();
    const m = (delays: (number | null)[]): Measurement[] => delays.map((d, i) => ({ at: now - (i + 1) * 1000, method: 'url', delayMs: d }));
    const world = worldOf({
      subscriptions: [{ id: 'sub', serverIds: ['A', 'B', 'C', 'D'] }],
      // A scored best before it was blocked; B, C, D are slower.
      measurements: { A: m([10, 10, 10]), B: m([100, 100]), C: m([200, 200]), D: m([300, 300]) },
    });
    const order = queueOrder({ ...world, verdict: (id) => w.runtime.verdict(id) }, ['A', 'B', 'C', 'D'], now);
    expect(order).toEqual(['B', 'C', 'D', 'A']);
  });
});
