import { describe, expect, it } from 'vitest';
import type { Reachability } from '../../shared/domain/status';
import { fakeServer, monitorHarness } from '../monitor/testing/harness';
import { measurementOperations } from './test-operations';
import { WindowStatuses } from './window-statuses';
import { ServerIndex } from './server-index';
import { subscriptionOf } from './testing/servers';

const blocked: Reachability = { verdict: 'blocked-here', reason: 'reached from 2 other servers, not from here', vantagePoints: [{ serverId: 'b', reached: true }], derivedAt: 0 };

function world() {
  const servers = [fakeServer('a'), fakeServer('b')];
  const h = monitorHarness({ servers, withDirectCheck: false });
  const index = new ServerIndex();
  index.rebuild([subscriptionOf('A', servers)]);
  const verdicts = { reachability: (id: string) => (id === 'a' ? blocked : null) };
  const view = new WindowStatuses(h.monitor, verdicts);
  return { h, view, ops: measurementOperations(h.monitor, view, index, verdicts) };
}

describe('measurements for the window', () => {
  it("every status the window gets carries the server's reachability verdict", async () => {
    const { h, view, ops } = world();
    h.prober.set('a', { answerMs: 120 });
    const tested = ops.testServer({ serverId: 'a' });
    await h.clock.advance(120);
    expect(await tested).toMatchObject({ serverId: 'a', delayMs: 120, reachability: { verdict: 'blocked-here' } });
    expect(view.of('a').reachability?.verdict).toBe('blocked-here');
    expect(view.all()).toMatchObject({ a: { delayMs: 120, reachability: { verdict: 'blocked-here' } }, b: { delayMs: null, reachability: null } });
    const exported = await ops.exportObservation({});
    expect(exported.servers.map((s) => [s.serverId, s.reachability?.verdict ?? null])).toEqual([
      ['a', 'blocked-here'],
      ['b', null],
    ]);
  });

  it("the list's statuses leave the statistics and measurements to the details, which get them whole on request", async () => {
    const { h, view, ops } = world();
    h.prober.set('a', { answerMs: 120 });
    const tested = ops.testServer({ serverId: 'a' });
    await h.clock.advance(120);
    await tested;
    const listed = view.listed();
    expect(listed.a).toMatchObject({ serverId: 'a', delayMs: 120, reachability: { verdict: 'blocked-here' } });
    expect(listed.a).not.toHaveProperty('statistics');
    expect(listed.a).not.toHaveProperty('recent');
    const whole = await ops.getServerStatus({ serverId: 'a' });
    expect(whole).toMatchObject({ serverId: 'a', delayMs: 120, reachability: { verdict: 'blocked-here' } });
    expect(whole.recent.at(-1)).toMatchObject({ delayMs: 120 });
    expect(whole.statistics).toBeDefined();
    await expect(ops.getServerStatus({ serverId: 'gone' })).rejects.toThrow('no server with id "gone"');
  });

  it('a server that left its subscription is refused in words, and nothing is probed', async () => {
    const { h, ops } = world();
    const gone = 'no server with id "gone" (it may have left its subscription)';
    await expect(ops.testServer({ serverId: 'gone' })).rejects.toThrow(gone);
    await expect(ops.measureThroughput({ serverId: 'gone' })).rejects.toThrow(gone);
    await expect(ops.measureDirect({ serverId: 'gone', method: 'tcp' })).rejects.toThrow(gone);
    await expect(ops.getHistory({ serverId: 'gone' })).rejects.toThrow(gone);
    expect(h.prober.probesOf('gone')).toEqual([]);
  });

  it("a TCP test on request answers with what it measured and the server's status after it, the measurement its latest", async () => {
    const { h, ops } = world();
    h.prober.set('a', { answerMs: 90 });
    const measured = ops.measureDirect({ serverId: 'a', method: 'tcp' });
    await h.clock.advance(30);
    const { outcome, status } = await measured;
    expect(outcome).toMatchObject({ method: 'tcp', available: true, measurement: { method: 'tcp', delayMs: 30 } });
    expect(status).toMatchObject({ serverId: 'a', reachability: { verdict: 'blocked-here' } });
    expect(status.recent.at(-1)).toMatchObject({ method: 'tcp', delayMs: 30 });
  });

  it("a server's history lists its measurements", async () => {
    const { h, ops } = world();
    h.prober.set('b', { answerMs: 80 });
    const tested = ops.testServer({ serverId: 'b' });
    await h.clock.advance(80);
    await tested;
    expect((await ops.getHistory({ serverId: 'b' })).map((m) => m.delayMs)).toEqual([80]);
  });
});
