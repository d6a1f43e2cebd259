/**
 * The contract's speed-test operations: which servers a scope names (the selection, a
 * subscription, all), a start refused in the user's language when a run is under way or nothing
 * is left to test, and a cancel that answers once every download has stopped.
 */
import { EngineRefusal } from '../../shared/domain/refusal';
import type { Server, ServerId } from '../../shared/domain/server';
import type { SpeedTestProgress, SpeedTestScope } from '../../shared/domain/speed-test';
import type { Subscription } from '../../shared/domain/subscription';
import { SpeedTestRefused, type SpeedTestRequest } from '../monitor/monitor';
import type { HandlersOf } from './contract-handlers';
import type { ServerIndex } from './server-index';

export interface SpeedTestRunner {
  startSpeedTest(request: SpeedTestRequest): SpeedTestProgress;
  cancelSpeedTest(): Promise<SpeedTestProgress>;
}

export interface SpeedTestCatalog {
  index: Pick<ServerIndex, 'all' | 'get' | 'require'>;
  subscriptions(): readonly Subscription[];
}

/** The servers a scope names, in list order; a named server or subscription that is gone is refused. */
export function serversOfScope(scope: SpeedTestScope, catalog: SpeedTestCatalog): ServerId[] {
  switch (scope.kind) {
    case 'all':
      return catalog.index.all().map((s) => s.id);
    case 'subscription': {
      const subscription = catalog.subscriptions().find((s) => s.id === scope.subscriptionId);
      if (!subscription) throw new EngineRefusal('no-such-subscription', `no subscription with id "${scope.subscriptionId}"`);
      return subscription.servers.map((s: Server) => s.id);
    }
    case 'servers':
      return scope.serverIds.map((id) => catalog.index.require(id).id);
  }
}

export function speedTestOperations(runner: SpeedTestRunner, catalog: SpeedTestCatalog): HandlersOf<'startSpeedTest' | 'cancelSpeedTest'> {
  return {
    startSpeedTest: async (r) => {
      const serverIds = serversOfScope(r.scope, catalog);
      try {
        return runner.startSpeedTest({ serverIds, bytes: r.bytes, parallel: r.parallel });
      } catch (error) {
        if (error instanceof SpeedTestRefused) {
          throw new EngineRefusal(serverIds.length === 0 ? 'nothing-to-speed-test' : 'speed-test-running', error.message);
        }
        throw error;
      }
    },
    cancelSpeedTest: async () => runner.cancelSpeedTest(),
  };
}
