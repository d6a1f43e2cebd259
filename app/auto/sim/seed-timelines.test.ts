/**
 * The seed's two timelines (spec/auto.md "Timeline"), as the shipped example scenarios run by
 * `npm run sim`: the whole output is pinned, and the facts the seed's figure states are asserted
 * on their own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { brief } from '../testing/simulate';
import { runScenario, type SimLine } from './run';
import { parseScenario } from './scenario';

async function run(name: string): Promise<SimLine[]> {
  const parsed = parseScenario(readFileSync(new URL(`./scenarios/${name}`, import.meta.url), 'utf8'));
  if (!parsed.ok) throw new Error(parsed.error);
  return runScenario(parsed.scenario);
}

describe('timeline 1: the server stops answering (server-silent.json)', () => {
  it('Finland silent → Netherlands; scheduled checks: Finland silent, answered 1 of 2, answered again → back to Finland', async () => {
    const lines = await run('server-silent.json');
    // Prepared at 122.5 s (half the stall): de and nl answered before the check, which switches as it starts.
    expect(brief(lines, { end: true })).toEqual([
      '122525 de 25',
      '122571 nl 71',
      '125000 check stall fi,nl,de',
      '125000 switch fi>nl current-silent',
      '127500 fi silent',
      '300000 check scheduled nl,fi,de',
      '300025 de 25',
      '300071 nl 71',
      '305000 fi silent',
      '305000 stay nl current-answered',
      '600000 check scheduled nl,fi,de',
      '600025 de 25',
      '600071 nl 71',
      '605000 fi silent',
      '605000 stay nl current-answered',
      '900000 check scheduled nl,fi,de',
      '900025 de 25',
      '900060 fi 60',
      '900071 nl 71',
      '900071 stay nl return-pending fi 1/2',
      '1200000 check scheduled nl,fi,de',
      '1200025 de 25',
      '1200060 fi 60',
      '1200071 nl 71',
      '1200071 switch nl>fi return',
      // nl before de: nl's transfer passed while it carried the traffic, de was never transfer-tested.
      '1500000 check scheduled fi,nl,de',
      '1500025 de 25',
      '1500060 fi 60',
      '1500071 nl 71',
      '1500071 stay fi current-answered',
      'end current=fi',
    ]);
    const switches = lines.filter((l) => l.type === 'switch').map((l) => [l.from, l.to, l.reason]);
    expect(switches).toEqual([
      ['fi', 'nl', 'current-silent'],
      ['nl', 'fi', 'return'],
    ]);
    expect(lines.at(-1)).toEqual({
      type: 'end',
      at: 1_800_000,
      current: 'fi',
      history: { fi: [null, null, 60, 60, 60], de: [25, 25, 25, 25, 25], nl: [71, 71, 71, 71, 71], b1: [], b2: [] },
    });
  });
});

describe('timeline 2: the network is lost (network-lost.json)', () => {
  it('stays on Finland, records nothing, retries after 15 s, 30 s, 60 s, then every 2 min; all as it was when the network returns', async () => {
    const lines = await run('network-lost.json');
    // The first check was prepared at half the stall (its probes went out at 122.5 s); the retries
    // come while the loss pause holds, which no preparation precedes.
    const attempts = [
      { start: 125_000, probed: 122_500, trigger: 'stall' },
      { start: 147_500, probed: 147_500, trigger: 'stall' },
      { start: 187_500, probed: 187_500, trigger: 'stall' },
      { start: 257_500, probed: 257_500, trigger: 'stall' },
      { start: 387_500, probed: 387_500, trigger: 'stall' },
      { start: 517_500, probed: 517_500, trigger: 'stall' },
    ];
    const nextIn = [15_000, 30_000, 60_000, 120_000, 120_000, 120_000];
    const expected = attempts.flatMap(({ start, probed, trigger }, i) => [
      `${start} check ${trigger} fi,de,nl`,
      `${probed + 5000} fi silent unrecorded`,
      `${probed + 5000} de silent unrecorded`,
      `${probed + 5000} nl silent unrecorded`,
      `${probed + 5000} check neighbour-sub b1,b2`,
      `${probed + 10_000} b1 silent unrecorded`,
      `${probed + 10_000} b2 silent unrecorded`,
      `${probed + 10_000} network-lost ${i + 1} next ${nextIn[i]}`,
    ]);
    const afterwards = [600_500, 900_500, 1_200_500, 1_500_500].flatMap((t) => [
      `${t} check scheduled fi,de,nl`,
      `${t + 18} nl 18`,
      `${t + 25} de 25`,
      `${t + 60} fi 60`,
      `${t + 60} stay fi current-answered`,
    ]);
    expect(brief(lines, { end: true })).toEqual([...expected, ...afterwards, 'end current=fi']);

    // The seed's facts, on their own.
    const lost = lines.filter((l) => l.type === 'network-lost');
    expect(lost.map((l) => l.next_in_ms)).toEqual(nextIn);
    const nextCheckAfter = (at: number) => lines.find((c) => c.type === 'check' && c.at > at)!.at;
    // While the network stays away, each retry comes exactly T_k after the attempt that failed.
    for (const l of lost.slice(0, -1)) expect(nextCheckAfter(l.at) - l.at).toBe(l.next_in_ms);
    expect(lines.filter((l) => l.type === 'switch')).toEqual([]);
    const whileLost = lines.filter((l) => l.type === 'probe-result' && l.at < 600_000);
    expect(whileLost.length).toBe(30);
    expect(whileLost.every((l) => l.recorded === false)).toBe(true);
    // Everything as it was: the history gained only the fresh answers after the network came back.
    expect(lines.at(-1)).toEqual({
      type: 'end',
      at: 1_800_000,
      current: 'fi',
      history: { fi: [62, 60, 60, 60, 60], de: [300, 25, 25, 25, 25], nl: [null, 18, 18, 18, 18], b1: [], b2: [] },
    });
  });

  it('the network returning ends the pause at once: the first check after it finds Finland answering', async () => {
    const lines = await run('network-lost.json');
    const firstAfter = lines.find((l) => l.at >= 600_000 && l.type === 'stay');
    expect(firstAfter).toMatchObject({ at: 600_560, id: 'fi', reason: 'current-answered' });
  });
});
