import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../shared/domain/status';
import { delays, NOW } from '../testing/measurements';
import { queueOrder } from './queue';
import { worldOf, type WorldData } from './world';

function order(data: Omit<WorldData, 'subscriptions'> & { ids: string[] }, excluded: string[] = []): string[] {
  const world = worldOf({ ...data, subscriptions: [{ id: 'A', serverIds: data.ids }] });
  return queueOrder(world, data.ids, NOW, new Set(excluded));
}

describe('queue order (spec/auto.md "Queue order")', () => {
  it('scored servers first, lowest score first (the worked example)', () => {
    expect(
      order({
        ids: ['nl', 'de', 'fi'],
        measurements: { fi: delays([60, 61, 62]), de: delays([20, 25, 300]), nl: delays([15, 18, null]) },
      }),
    ).toEqual(['fi', 'de', 'nl']);
  });

  it('then unscored: with throughput (fastest first), never tested, latest without answer', () => {
    expect(
      order({
        ids: ['silent', 'untested', 'slow-dl', 'scored', 'fast-dl'],
        measurements: { silent: delays([40, null]), scored: delays([500, 600]) },
        throughputBps: { 'slow-dl': 1e5, 'fast-dl': 5e6 },
      }),
    ).toEqual(['scored', 'fast-dl', 'slow-dl', 'untested', 'silent']);
  });

  it('a throughput measurement puts an unscored server ahead even if its latest ping failed', () => {
    expect(order({ ids: ['a', 'b'], measurements: { a: delays([null]), b: delays([null]) }, throughputBps: { b: 1e6 } })).toEqual(['b', 'a']);
  });

  it('ties keep subscription order', () => {
    const same = delays([50, 60]);
    expect(order({ ids: ['c', 'a', 'b'], measurements: { a: same, b: same, c: same } })).toEqual(['c', 'a', 'b']);
    expect(order({ ids: ['z', 'y', 'x'] })).toEqual(['z', 'y', 'x']);
    expect(order({ ids: ['q', 'p'], measurements: { q: delays([null]), p: delays([null]) } })).toEqual(['q', 'p']);
  });

  it('stale measurements leave a server with the never-tested ones, unless its latest failed', () => {
    const stale = delays([30, 31], { now: NOW - 48 * 3600_000 });
    const staleSilent = delays([30, null], { now: NOW - 48 * 3600_000 });
    expect(order({ ids: ['s', 'x', 'n'], measurements: { s: staleSilent, x: stale } })).toEqual(['x', 'n', 's']);
  });

  it('a cached result carries the 20,000 ms penalty, so a fresh slow one comes first', () => {
    expect(order({ ids: ['cached', 'fresh'], measurements: { cached: delays([50, 50]), fresh: delays([900, 950]) }, fromCache: { cached: true } })).toEqual([
      'fresh',
      'cached',
    ]);
  });

  it('leaves out marked servers, but chooses among them when only marked remain', () => {
    const data = { ids: ['a', 'b', 'c'], measurements: { a: delays([10, 10]), b: delays([20, 20]), c: delays([30, 30]) } };
    expect(order(data, ['a'])).toEqual(['b', 'c']);
    expect(order(data, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
  });

  it('blocked-here servers sink after the scored ones; unscored blocked ones go last', () => {
    const verdicts: Record<string, Verdict> = { blockedScored: 'blocked-here', blockedSilent: 'blocked-here', failing: 'failing' };
    expect(
      order({
        ids: ['blockedSilent', 'blockedScored', 'untested', 'failing', 'ok'],
        measurements: { blockedScored: delays([5, 5]), blockedSilent: delays([null]), failing: delays([90, 90]), ok: delays([100, 100]) },
        verdicts,
      }),
    ).toEqual(['failing', 'ok', 'blockedScored', 'untested', 'blockedSilent']);
  });

  it('a server whose address the trusted checker calls blocked sinks the same way', () => {
    const data = { ids: ['blocked', 'ok'], measurements: { blocked: delays([5, 5]), ok: delays([100, 100]) } };
    expect(order({ ...data, verdicts: { blocked: 'blocked' } })).toEqual(['ok', 'blocked']);
    expect(order(data)).toEqual(['blocked', 'ok']);
  });
});

describe('queue order and the transfer test (ping answers, traffic freezes)', () => {
  it.each([
    // transfers, expected order
    ['a freezing server sinks below every server that may answer, above the silent', { fast: 'freezes' }, ['slow', 'dl', 'untested', 'fast', 'silent']],
    ['a throttled server keeps its place', { fast: 'throttled' }, ['fast', 'slow', 'dl', 'untested', 'silent']],
    ['a passing or failed transfer changes nothing', { fast: 'ok', slow: 'failed' }, ['fast', 'slow', 'dl', 'untested', 'silent']],
    ['freezing servers among themselves by score', { fast: 'freezes', slow: 'freezes' }, ['dl', 'untested', 'fast', 'slow', 'silent']],
  ] as const)('%s', (_name, transfers, expected) => {
    expect(
      order({
        ids: ['silent', 'untested', 'dl', 'slow', 'fast'],
        measurements: { silent: delays([40, null]), slow: delays([300, 310]), fast: delays([40, 41]) },
        throughputBps: { dl: 2e6 },
        transfers,
      }),
    ).toEqual(expected);
  });
});
