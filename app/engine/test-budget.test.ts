import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../shared/domain/server';
import { monitorSettingsSchema } from '../../shared/settings';
import { fakeServer, monitorHarness } from '../monitor/testing/harness';
import { ProblemBoard } from './problems';
import { countedVantages, followTestBudget } from './test-budget';

const KB = 1024;
const settings = {
  transferTestBytes: 64 * KB,
  transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}',
  transferTestEveryServer: false,
  urls: ['http://127.0.0.1:9/generate_204'],
  intervalMs: 60_000,
  idleTimeoutMs: 3_600_000,
};

describe('the test budget in the engine', () => {
  it('a spent budget is a problem on the board while it lasts, and leaves it when the cap is raised', async () => {
    const h = monitorHarness({ settings: { ...settings, testBudgetBytesPerDay: 50 * KB }, selections: ['a'], extra: { ipInfo: false, queue: () => ['a', 'b', 'c'] } });
    const board = new ProblemBoard(h.clock);
    followTestBudget(h.monitor, board);
    await h.monitor.start();
    await h.clock.advance(5000);
    expect(board.list()).toEqual([expect.objectContaining({ severity: 'warning', topic: { kind: 'test-budget', capBytesPerDay: 50 * KB } })]);
    expect(board.list()[0]!.detail).toMatch(/daily budget of 0\.1 MB: only delay probes of the current server and Auto's next candidates run/);
    h.monitor.setSettings(monitorSettingsSchema.parse({ ...settings, testBudgetBytesPerDay: 10 * 1024 * KB }));
    expect(board.list()).toEqual([]);
  });

  it('counts reachability’s tests through other servers on the vantage’s account', async () => {
    const h = monitorHarness({ settings, extra: { ipInfo: false } });
    const vantage = fakeServer('v' as ServerId, { transport: { network: 'ws' }, security: { type: 'tls' } });
    const target = fakeServer('t' as ServerId);
    const prober = countedVantages(
      { unsupported: () => null, reachThrough: async () => ({ reached: true, delayMs: 80 }) },
      () => 'http://127.0.0.1:9/generate_204',
      h.monitor,
    );
    expect(await prober.reachThrough(vantage, target, 1000)).toEqual({ reached: true, delayMs: 80 });
    const spent = h.monitor.testTrafficOf('v' as ServerId).reachability;
    // The vantage's TLS and WebSocket handshakes, the target's protocol header, the request and its answer.
    expect(spent.up).toBeGreaterThan(914 + 64);
    expect(spent.down).toBeGreaterThan(4162 + 32 + 200);
    expect(h.monitor.testTraffic().lastHour.reachability).toEqual(spent);
  });
});
