import { describe, expect, it } from 'vitest';
import { systemIpv6Resolver } from './resolver';

describe('the system IPv6 resolver', () => {
  it('gives an IPv6 address as itself', async () => {
    expect(await systemIpv6Resolver('::1')).toEqual({ address: '::1' });
  });

  it('says a name without an IPv6 address has none (.invalid never resolves), never guessing', async () => {
    expect(await systemIpv6Resolver('no-such-host.invalid')).toEqual({ address: null, reason: 'no-such-host.invalid has no IPv6 address (AAAA)' });
  });

  it('never hands out an IPv4 address (Node gives an IPv4 literal back as family 4 even when asked for 6)', async () => {
    expect(await systemIpv6Resolver('127.0.0.1')).toEqual({ address: null, reason: '127.0.0.1 has no IPv6 address (AAAA)' });
  });
});
