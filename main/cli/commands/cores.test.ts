import { describe, expect, it } from 'vitest';
import { parseCoresArgs } from './cores';

describe('cli cores options', () => {
  it('reads the subscription and the chosen main core', () => {
    expect(parseCoresArgs([])).toEqual({});
    expect(parseCoresArgs(['--subscription', 'sub.txt', '--core', 'v2ray'])).toEqual({ subscription: 'sub.txt', corePath: 'v2ray' });
  });

  it.each([
    [['--core', 'sing-box'], /cannot be the main core/],
    [['--subscription'], /--subscription needs a value/],
    [['extra'], /unexpected argument "extra"/],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(() => parseCoresArgs(argv)).toThrow(message);
  });
});
