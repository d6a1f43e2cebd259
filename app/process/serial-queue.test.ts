import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue';

interface Step {
  name: string;
  /** How long the operation takes. */
  ms: number;
  fails?: boolean;
}

const cases: { title: string; steps: Step[] }[] = [
  {
    title: 'a slow first operation ends before a quick second one starts',
    steps: [
      { name: 'connect', ms: 40 },
      { name: 'disconnect', ms: 0 },
    ],
  },
  {
    title: 'three operations run in call order, each after the last has ended',
    steps: [
      { name: 'a', ms: 20 },
      { name: 'b', ms: 5 },
      { name: 'c', ms: 10 },
    ],
  },
  {
    title: 'a failed operation does not stop the next, and its caller sees the rejection',
    steps: [
      { name: 'apply', ms: 10, fails: true },
      { name: 'lift', ms: 0 },
    ],
  },
  {
    title: 'failures in a row: each is told, the operation after them still runs',
    steps: [
      { name: 'a', ms: 5, fails: true },
      { name: 'b', ms: 0, fails: true },
      { name: 'c', ms: 5 },
    ],
  },
];

describe('SerialQueue', () => {
  it.each(cases)('$title', async ({ steps }) => {
    const log: string[] = [];
    const told: string[] = [];
    const queue = new SerialQueue((error) => told.push((error as Error).message));
    const outcomes = await Promise.allSettled(
      steps.map(({ name, ms, fails }) =>
        queue.run(async () => {
          log.push(`start ${name}`);
          await delay(ms);
          log.push(`end ${name}`);
          if (fails) throw new Error(`${name} failed`);
          return name;
        }),
      ),
    );
    expect(log).toEqual(steps.flatMap(({ name }) => [`start ${name}`, `end ${name}`]));
    expect(outcomes).toEqual(steps.map(({ name, fails }) => (fails ? { status: 'rejected', reason: new Error(`${name} failed`) } : { status: 'fulfilled', value: name })));
    expect(told).toEqual(steps.filter(({ fails }) => fails).map(({ name }) => `${name} failed`));
  });

  it('an operation that throws before its first await counts as a failure like any other', async () => {
    const told: unknown[] = [];
    const queue = new SerialQueue((error) => told.push(error));
    const boom = new Error('thrown at once');
    const first = queue.run(() => {
      throw boom;
    });
    const second = queue.run(async () => 'ran');
    await expect(first).rejects.toBe(boom);
    await expect(second).resolves.toBe('ran');
    expect(told).toEqual([boom]);
  });

  it('a failure nobody waits for is no unhandled rejection, with or without onError', async () => {
    // vitest fails the run on an unhandled rejection, so these two lines are the assertion.
    const quiet = new SerialQueue();
    void quiet.run(() => Promise.reject(new Error('started by a timer')));
    await expect(quiet.run(async () => 'next')).resolves.toBe('next');
  });

  it('keeps going when onError itself throws', async () => {
    const queue = new SerialQueue(() => {
      throw new Error('the logger broke');
    });
    await expect(queue.run(() => Promise.reject(new Error('first')))).rejects.toThrow('first');
    await expect(queue.run(async () => 'second')).resolves.toBe('second');
  });
});
