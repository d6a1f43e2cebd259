/** What the runtime keeps of a target's vantage observations (witness.ts `keptObservations`). */
import { describe, expect, it } from 'vitest';
import { exitNetworkOf } from './exit-network';
import type { VantageObservation } from './observation';
import { reachabilityRules } from './rules';
import { keptObservations } from './witness';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const NOW = 100 * H;
// Monitor interval 5 min: freshness 10 min; the witness lookback is 24 h.
const rules = reachabilityRules({ intervalMs: 5 * MIN, urlTestTimeoutMs: 5 * S });
const network = exitNetworkOf({ ip: '203.0.113.7', asn: 'AS1', countryCode: 'DE', source: 'ipapi.co' }, 'x.example');
const seen = (vantage: string, reached: boolean, agoMs: number): VantageObservation => ({ vantageId: vantage, vantageName: vantage, network, reached, at: NOW - agoMs });
const label = (o: VantageObservation) => `${o.vantageId} ${o.reached ? 'reached' : 'not'} ${(NOW - o.at) / MIN} min ago`;

describe('keptObservations: the votes, and the memory of what a vantage point could see', () => {
  it.each([
    { name: 'fresh observations are all kept', list: [seen('V', true, 9 * MIN), seen('V', false, 1 * MIN)], kept: ['V reached 9 min ago', 'V not 1 min ago'] },
    {
      name: 'a stale success is kept as the latest one of its vantage point (it could see the target)',
      list: [seen('V', true, 3 * H), seen('V', true, 2 * H), seen('V', false, 1 * MIN)],
      kept: ['V reached 120 min ago', 'V not 1 min ago'],
    },
    { name: 'stale failures are dropped', list: [seen('V', false, 2 * H), seen('W', false, 11 * MIN)], kept: [] },
    { name: 'per vantage point', list: [seen('V', true, 2 * H), seen('W', true, 3 * H), seen('W', false, 2 * H)], kept: ['V reached 120 min ago', 'W reached 180 min ago'] },
    { name: 'nothing older than the lookback', list: [seen('V', true, 25 * H)], kept: [] },
  ])('$name', ({ list, kept }) => {
    expect(keptObservations(list, NOW, rules).map(label)).toEqual(kept);
  });
});
