import { describe, expect, it } from 'vitest';
import { parseLabArgs } from './options';

describe('parseLabArgs', () => {
  it('reads every flag', () => {
    expect(parseLabArgs(['--servers', '200', '--subscriptions', '4', '--seed', '9', '--latency', '5-50', '--v2ray', '/x/v2ray', '--selftest'])).toEqual({
      options: { servers: 200, subscriptions: 4, seed: 9, latency: [5, 50], v2rayPath: '/x/v2ray' },
      selftest: true,
    });
  });

  it('asks for the modern block, with its cores where given', () => {
    expect(parseLabArgs(['--modern', '--xray', '/x/xray', '--sing-box', '/x/sing-box']).options).toEqual({ modern: true, xrayPath: '/x/xray', singBoxPath: '/x/sing-box' });
  });

  it('leaves defaults to the lab', () => {
    expect(parseLabArgs([])).toEqual({ options: {}, selftest: false });
  });

  it.each([
    [['--servers'], /--servers needs a whole number, got nothing/],
    [['--servers', 'ten'], /--servers needs a whole number, got "ten"/],
    [['--latency', '300'], /--latency needs a range like 20-300/],
    [['--bogus'], /unknown option "--bogus"/],
    [['--xray'], /--xray needs the path of a xray binary/],
  ])('%j: a clear error', (argv, message) => {
    expect(() => parseLabArgs(argv)).toThrow(message);
  });
});
