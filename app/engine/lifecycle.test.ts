import { describe, expect, it } from 'vitest';
import { Lifecycle, LifecycleError, type Service, type Stage } from './lifecycle';

function recorder() {
  const calls: string[] = [];
  const service = (name: string, options: { failAt?: Stage; failClose?: boolean } = {}): Service => ({
    name,
    start(stage) {
      calls.push(`${name}:${stage}`);
      if (options.failAt === stage) throw new Error(`${name} broke`);
    },
    close() {
      calls.push(`${name}:close`);
      if (options.failClose) throw new Error(`${name} would not close`);
    },
  });
  return { calls, service };
}

describe('the engine lifecycle', () => {
  it('runs each stage through every service, in order, before the next stage', async () => {
    const { calls, service } = recorder();
    await new Lifecycle([service('monitor'), service('auto')]).start();
    expect(calls).toEqual([
      'monitor:initialize',
      'auto:initialize',
      'monitor:start',
      'auto:start',
      'monitor:post-start',
      'auto:post-start',
      'monitor:started',
      'auto:started',
    ]);
  });

  it('closes in reverse order, once, however often it is asked', async () => {
    const { calls, service } = recorder();
    const lifecycle = new Lifecycle([service('monitor'), service('auto'), service('proxy')]);
    await lifecycle.start();
    calls.length = 0;
    await Promise.all([lifecycle.close(), lifecycle.close()]);
    await lifecycle.close();
    expect(calls).toEqual(['proxy:close', 'auto:close', 'monitor:close']);
  });

  it.each<[Stage, string[]]>([
    ['initialize', ['a:initialize', 'b:initialize', 'c:close', 'b:close', 'a:close']],
    ['post-start', ['a:initialize', 'b:initialize', 'c:initialize', 'a:start', 'b:start', 'c:start', 'a:post-start', 'b:post-start', 'c:close', 'b:close', 'a:close']],
  ])('a failure in %s names the service and the stage, and every service is closed in reverse', async (stage, expected) => {
    const { calls, service } = recorder();
    const lifecycle = new Lifecycle([service('a'), service('b', { failAt: stage }), service('c')]);
    const failure = await lifecycle.start().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LifecycleError);
    expect(failure).toMatchObject({ service: 'b', stage, message: `b failed to start (${stage}): b broke` });
    expect(calls).toEqual(expected);
  });

  it('one close that fails does not keep the others from closing, and is reported', async () => {
    const { calls, service } = recorder();
    const lifecycle = new Lifecycle([service('a'), service('b', { failClose: true }), service('c')]);
    await lifecycle.start();
    calls.length = 0;
    const failures = await lifecycle.close();
    expect(calls).toEqual(['c:close', 'b:close', 'a:close']);
    expect(failures.map((f) => f.message)).toEqual(['b failed to close: b would not close']);
  });

  it('closing before start closes nothing, and a closed lifecycle does not start again', async () => {
    const { calls, service } = recorder();
    const lifecycle = new Lifecycle([service('a')]);
    expect(await lifecycle.close()).toEqual([]);
    expect(calls).toEqual([]);
    await expect(lifecycle.start()).rejects.toThrow('a lifecycle starts once');
  });

  it('refuses two services of one name: a failure must name one', () => {
    expect(() => new Lifecycle([{ name: 'monitor' }, { name: 'monitor' }])).toThrow('two services are named monitor');
  });
});
