/**
 * The engine's side of what testing costs: reachability's probes through other servers are
 * counted on the monitor's ledger, and a spent daily budget is on the problem board (in the
 * user's words) for as long as it stays spent.
 */
import type { Server } from '../../shared/domain/server';
import type { VantageProber } from '../reachability';
import type { Monitor } from '../monitor/monitor';
import type { ProblemBoard } from './problems';

/** The vantage prober, each of its tests counted as reachability traffic of the vantage server. */
export function countedVantages(vantages: VantageProber, url: () => string, monitor: Pick<Monitor, 'countChainedTest'>): VantageProber {
  return {
    unsupported: (vantage, target) => vantages.unsupported(vantage, target),
    async reachThrough(vantage: Server, target: Server, timeoutMs: number) {
      const result = await vantages.reachThrough(vantage, target, timeoutMs);
      monitor.countChainedTest(vantage, target, url(), result.reached);
      return result;
    },
  };
}

/** Raises the test-budget problem while the cap is reached, withdraws it when testing is under it again. */
export function followTestBudget(monitor: Pick<Monitor, 'onTestBudget' | 'testTraffic'>, board: Pick<ProblemBoard, 'raise' | 'withdraw'>): () => void {
  return monitor.onTestBudget((capped) => {
    const capBytesPerDay = monitor.testTraffic().capBytesPerDay;
    if (!capped) {
      board.withdraw({ kind: 'test-budget', capBytesPerDay });
      return;
    }
    const mb = (capBytesPerDay / 1e6).toFixed(1);
    board.raise({
      topic: { kind: 'test-budget', capBytesPerDay },
      detail: `Testing used its daily budget of ${mb} MB: only delay probes of the current server and Auto's next candidates run until the last 24 hours fall under it.`,
    });
  });
}
