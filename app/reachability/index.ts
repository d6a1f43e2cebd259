/**
 * Reachability verdicts (spec/reachability.md): "is the server dead, or is it blocked for me?".
 * See ./reachability.ts for the runtime and its wiring, ./chained-prober.ts for the outside view
 * through a real core, ./policy for the rules (./policy/plan.ts decides).
 */
import type { VantageProber } from './ports';

export { ReachabilityRuntime, type ReachabilityOptions, type ReachabilitySettings, type VerdictChange } from './reachability';
export type { ReachabilityBudget } from './budget';
export type { VerdictBudget } from './policy/spend';
export { ChainedProber, type ChainedProberOptions, type ChainedProberStats } from './chained-prober';
export { CarrierVantages } from './carrier-vantages';
export type { HereProbePort, MonitorResultsPort, VantageProber, VantageProbeResult } from './ports';
export { reachabilityRules, type ReachabilityRules } from './policy/rules';

/**
 * The vantage prober when no core can run (none found, or unsupported): nothing can be dialled
 * through another server, and the verdicts say why instead of waiting.
 */
export function noVantageProber(reason: string): VantageProber {
  return {
    unsupported: () => reason,
    reachThrough: () => Promise.resolve({ reached: false, inconclusive: true, error: reason }),
  };
}
