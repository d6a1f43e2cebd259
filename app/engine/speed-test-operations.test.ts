import { describe, expect, it } from 'vitest';
import { EngineRefusal } from '../../shared/domain/refusal';
import type { Server } from '../../shared/domain/server';
import { IDLE_SPEED_TEST } from '../../shared/domain/speed-test';
import type { Subscription } from '../../shared/domain/subscription';
import { SpeedTestRefused, type SpeedTestRequest } from '../monitor/monitor';
import { ServerIndex } from './server-index';
import { speedTestOperations } from './speed-test-operations';

const server = (id: string, subscriptionId: string) => ({ id, subscriptionId, name: id }) as unknown as Server;
const subscriptions = [
  { id: 'A', servers: [server('a1', 'A'), server('a2', 'A')] },
  { id: 'B', servers: [server('b1', 'B')] },
  { id: 'E', servers: [] },
] as unknown as Subscription[];

function operations() {
  const index = new ServerIndex();
  index.rebuild(subscriptions);
  const asked: SpeedTestRequest[] = [];
  const runner = {
    startSpeedTest(request: SpeedTestRequest) {
      asked.push(request);
      if (request.serverIds.length === 0) throw new SpeedTestRefused('there is no server to test');
      if (asked.length > 3) throw new SpeedTestRefused('a speed test is already running');
      return { ...IDLE_SPEED_TEST, running: true, total: request.serverIds.length };
    },
    cancelSpeedTest: async () => IDLE_SPEED_TEST,
  };
  return { handlers: speedTestOperations(runner, { index, subscriptions: () => subscriptions }), asked };
}

const refusal = async (run: () => Promise<unknown>) => {
  const error = await run().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EngineRefusal);
  return (error as EngineRefusal).code;
};

describe('the speed test operations', () => {
  it('names the servers of a scope in list order, with the size and parallelism asked', async () => {
    const { handlers, asked } = operations();
    await handlers.startSpeedTest({ scope: { kind: 'all' } });
    await handlers.startSpeedTest({ scope: { kind: 'subscription', subscriptionId: 'A' }, bytes: 1_000_000, parallel: 3 });
    await handlers.startSpeedTest({ scope: { kind: 'servers', serverIds: ['b1', 'a2'] } });
    expect(asked).toEqual([
      { serverIds: ['a1', 'a2', 'b1'], bytes: undefined, parallel: undefined },
      { serverIds: ['a1', 'a2'], bytes: 1_000_000, parallel: 3 },
      { serverIds: ['b1', 'a2'], bytes: undefined, parallel: undefined },
    ]);
  });

  it('refuses in the user’s language: a server or subscription that is gone, nothing to test, a run under way', async () => {
    const { handlers } = operations();
    expect(await refusal(() => handlers.startSpeedTest({ scope: { kind: 'servers', serverIds: ['zz'] } }))).toBe('no-such-server');
    expect(await refusal(() => handlers.startSpeedTest({ scope: { kind: 'subscription', subscriptionId: 'Z' } }))).toBe('no-such-subscription');
    expect(await refusal(() => handlers.startSpeedTest({ scope: { kind: 'subscription', subscriptionId: 'E' } }))).toBe('nothing-to-speed-test');
    for (let i = 0; i < 3; i++) await handlers.startSpeedTest({ scope: { kind: 'all' } }).catch(() => undefined);
    expect(await refusal(() => handlers.startSpeedTest({ scope: { kind: 'all' } }))).toBe('speed-test-running');
  });
});
