import { describe, expect, it } from 'vitest';
import { ServerWorkQueue } from './server-work-queue';

interface Job {
  serverId: string;
  n: number;
}

function harness(limit: number) {
  const started: { job: Job; signal: AbortSignal; finish(): void }[] = [];
  const queue = new ServerWorkQueue<Job>(
    () => limit,
    (job, signal) => new Promise<void>((finish) => started.push({ job, signal, finish })),
  );
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { queue, started, settle };
}

describe('ServerWorkQueue', () => {
  it('runs one job per server and at most `limit` at once, the rest in order as jobs end', async () => {
    const { queue, started, settle } = harness(2);
    expect(queue.add({ serverId: 'a', n: 1 })).toBe(true);
    expect(queue.add({ serverId: 'a', n: 2 })).toBe(false);
    queue.add({ serverId: 'b', n: 3 });
    queue.add({ serverId: 'c', n: 4 });
    expect(started.map((s) => s.job.n)).toEqual([1, 3]);
    expect(queue.busy('c')).toBe(true);
    expect(queue.pending().map((j) => j.n)).toEqual([4, 1, 3]);
    started[0]!.finish();
    await settle();
    expect(started.map((s) => s.job.n)).toEqual([1, 3, 4]);
    expect(queue.busy('a')).toBe(false);
  });

  it('stop() drops the queued jobs and aborts the running ones; later jobs get a fresh signal', async () => {
    const { queue, started, settle } = harness(1);
    queue.add({ serverId: 'a', n: 1 });
    queue.add({ serverId: 'b', n: 2 });
    queue.stop();
    expect(started[0]!.signal.aborted).toBe(true);
    expect(queue.busy('b')).toBe(false);
    started[0]!.finish();
    await settle();
    queue.add({ serverId: 'c', n: 3 });
    expect(started.map((s) => s.job.n)).toEqual([1, 3]);
    expect(started[1]!.signal.aborted).toBe(false);
  });
});
