/**
 * A provider blocked on the user's network: its connections from the user's own address are
 * reset (the lab's `blocked-here` subscription mode), while anyone coming through a lab server is
 * served. Connected, an update fails directly and succeeds through the tunnel; disconnected, it
 * fails and says why, keeping the servers it had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../app/log/logger';
import { type Demo, startDemo } from '../demo/world';

describe('subscription updates through the tunnel', () => {
  let demo: Demo;
  let lines: string[];

  beforeAll(async () => {
    const memory = memoryLogger('info');
    lines = memory.lines;
    demo = await startDemo({ logger: memory.logger, servers: 4, subscriptions: 1 });
  }, 60_000);

  afterAll(async () => {
    await demo?.stop();
  }, 30_000);

  it('blocked directly, the update comes through the connected tunnel; disconnected, it fails with the reason and keeps the list', async () => {
    const labSub = demo.lab.info.subscriptions[0]!;
    const before = await demo.engine.getSnapshot({});
    expect(before.connection.state).toBe('connected');
    const subscription = before.subscriptions.find((s) => s.url === labSub.url)!;
    const servers = subscription.servers.length;
    await demo.lab.setSubscription(labSub.id, { mode: 'blocked-here' });
    const served = (await demo.lab.counters()).subscriptions[labSub.id] ?? 0;

    const updated = await demo.engine.updateSubscription({ id: subscription.id });
    expect(updated.lastError).toBeNull();
    expect(updated.servers).toHaveLength(servers);
    // Served once, and only through the tunnel: the direct attempt was reset before it was served.
    expect((await demo.lab.counters()).subscriptions[labSub.id]).toBe(served + 1);
    expect(lines.some((line) => /could not be reached directly \(reset\); trying through the tunnel/.test(line))).toBe(true);
    expect(lines.some((line) => /updated \(base64\) through the tunnel/.test(line))).toBe(true);

    await demo.engine.setAuto({ subscriptionId: null });
    await demo.engine.disconnect({});
    const failed = await demo.engine.updateSubscription({ id: subscription.id });
    expect(failed.lastErrorKind).toBe('reset');
    expect(failed.servers).toHaveLength(servers);
    expect((await demo.lab.counters()).subscriptions[labSub.id]).toBe(served + 1);
  }, 60_000);
});
