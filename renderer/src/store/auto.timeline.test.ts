import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../../shared/domain/auto';
import { seedTimeline } from '../testing/sample-world';
import { buildTimeline, episodes, lossPeriods } from './auto.timeline';
import { timeTicks } from './ticks';

const MIN = 60_000;
const NOW = 100 * MIN;
const T0 = NOW - 30 * MIN;
const at = (m: number, s = 0) => T0 + m * MIN + s * 1000;

describe('the Auto timeline (the seed’s figure from live data)', () => {
  const model = buildTimeline(seedTimeline(NOW), NOW, 30 * MIN);

  it('draws who carried the traffic: Finland, Netherlands after Finland went silent, back to Finland', () => {
    expect(model.segments.map((s) => [s.serverId, s.start, s.end])).toEqual([
      ['fi', at(0), at(4, 6)],
      ['nl', at(4, 6), at(19, 8)],
      ['fi', at(19, 8), NOW],
    ]);
  });

  it('marks checks, the switch and the return', () => {
    const kinds = model.markers.map((m) => m.kind);
    expect(kinds.filter((k) => k === 'check')).toHaveLength(6);
    expect(model.markers.filter((m) => m.kind === 'switch')).toEqual([
      { kind: 'switch', at: at(0), serverId: 'fi' },
      { kind: 'switch', at: at(4, 6), serverId: 'nl' },
    ]);
    expect(model.markers.filter((m) => m.kind === 'return')).toEqual([{ kind: 'return', at: at(19, 8), serverId: 'fi' }]);
  });

  it('shades the network-loss period from the check that found everyone silent to the first answer', () => {
    expect(model.losses).toEqual([{ start: at(23), end: at(27, 7), ongoing: false }]);
  });

  it('keeps a loss period open while nothing has answered since', () => {
    const entries: TimelineEntry[] = [
      { type: 'check', at: at(1), trigger: 'stall', probe: ['fi'], carrying: 'fi' },
      { type: 'probe-result', at: at(1, 5), id: 'fi', delay: null, recorded: false, carrying: 'fi' },
      { type: 'network-lost', at: at(1, 6), attempt: 1, next_in_ms: 15_000, carrying: 'fi' },
    ];
    expect(lossPeriods(entries, at(3))).toEqual([{ start: at(1), end: at(3), ongoing: true }]);
  });

  it('clips to the window and knows who carried the traffic when the window starts', () => {
    const short = buildTimeline(seedTimeline(NOW), NOW, 20 * MIN); // starts at minute 10, on nl
    expect(short.segments[0]).toEqual({ serverId: 'nl', start: at(10), end: at(19, 8) });
    expect(short.markers.some((m) => m.at < at(10))).toBe(false);
  });

  it('draws nothing for a timeline that is empty', () => {
    expect(buildTimeline([], NOW, 30 * MIN)).toEqual({ start: NOW - 30 * MIN, end: NOW, segments: [], markers: [], losses: [] });
  });

  it('groups the decisions into episodes, newest first, each check with its results and outcome', () => {
    const list = episodes(seedTimeline(NOW));
    expect(list[list.length - 1]).toMatchObject({ check: null, outcome: { type: 'switch', reason: 'auto-on' } });
    const firstCheck = list[list.length - 2]!;
    expect(firstCheck.check?.trigger).toBe('stall');
    expect(firstCheck.results.map((r) => [r.id, r.delay])).toEqual([
      ['nl', 18],
      ['de', 41],
      ['fi', null],
    ]);
    expect(firstCheck.outcome).toMatchObject({ type: 'switch', from: 'fi', to: 'nl', reason: 'current-silent' });
    const loss = list.find((e) => e.outcome?.type === 'network-lost')!;
    expect(loss.results.every((r) => !r.recorded)).toBe(true);
    // the retries at 15 s, 30 s and 1 min fold into the check that found the network gone
    expect(loss.retries).toBe(3);
    expect(loss.outcome).toMatchObject({ attempt: 4, next_in_ms: 120_000 });
    expect(list.filter((e) => e.outcome?.type === 'network-lost')).toHaveLength(1);
    expect(list[0]).toMatchObject({ outcome: { type: 'stay', id: 'fi' } });
  });

  it.each<[string, TimelineEntry[], { check: string | null; results: string[]; outcome: string | null }[]]>([
    [
      'answers to probes sent ahead join the check that follows, and the silent server\'s late timeout joins it too',
      [
        { type: 'prepare', at: 1000, probe: ['a1', 'a2', 'a3'], carrying: 'a1' },
        { type: 'probe-result', at: 1200, id: 'a2', delay: 150, recorded: true, carrying: 'a1' },
        { type: 'probe-result', at: 1300, id: 'a3', delay: 180, recorded: true, carrying: 'a1' },
        { type: 'check', at: 3500, trigger: 'stall', probe: ['a1', 'a2', 'a3'], carrying: 'a1' },
        { type: 'switch', at: 3600, from: 'a1', to: 'a2', reason: 'current-silent', carrying: 'a1' },
        { type: 'probe-result', at: 6000, id: 'a1', delay: null, recorded: true, carrying: 'a2' },
      ],
      [{ check: 'stall', results: ['a2', 'a3', 'a1'], outcome: 'switch' }],
    ],
    [
      'a stall that ended before its check: the answers ahead of it are no episode',
      [
        { type: 'prepare', at: 1000, probe: ['a1', 'a2'], carrying: 'a1' },
        { type: 'probe-result', at: 1200, id: 'a2', delay: 150, recorded: true, carrying: 'a1' },
        { type: 'stay', at: 2000, id: 'a1', reason: 'healthy', carrying: 'a1' },
      ],
      [{ check: null, results: [], outcome: 'stay' }],
    ],
    [
      'an answer no check asked for still stands alone',
      [
        { type: 'check', at: 1000, trigger: 'scheduled', probe: ['a1'], carrying: 'a1' },
        { type: 'stay', at: 1100, id: 'a1', reason: 'healthy', carrying: 'a1' },
        { type: 'probe-result', at: 1200, id: 'b1', delay: 90, recorded: true, carrying: 'a1' },
      ],
      [
        { check: null, results: ['b1'], outcome: null },
        { check: 'scheduled', results: [], outcome: 'stay' },
      ],
    ],
  ])('%s', (_, entries, expected) => {
    expect(episodes(entries).map((e) => ({ check: e.check?.trigger ?? null, results: e.results.map((r) => r.id), outcome: e.outcome?.type ?? null }))).toEqual(expected);
  });

  it('puts round time ticks on the axis', () => {
    expect(timeTicks(0, 30 * MIN, 6)).toEqual([0, 5, 10, 15, 20, 25, 30].map((m) => m * MIN));
    expect(timeTicks(0, 10 * MIN, 6)).toEqual([0, 2, 4, 6, 8, 10].map((m) => m * MIN));
  });

  it('puts the ticks on round times of the user’s clock, half-hour zones included', () => {
    const tehran = 210 * MIN; // UTC+3:30: an hourly tick at 12:00 local is 08:30 UTC
    const ticks = timeTicks(8 * 60 * MIN, 14 * 60 * MIN, 6, tehran);
    expect(ticks.map((t) => ((t + tehran) / MIN) % 60)).toEqual(ticks.map(() => 0));
    expect(ticks[0]).toBe(8 * 60 * MIN + 30 * MIN);
  });
});
