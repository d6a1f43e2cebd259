import { describe, expect, it } from 'vitest';
import { ipv6CaptureFor, type KnownIpv6 } from './ipv6-capture';

describe('IPv6 in system-wide mode', () => {
  it.each<[string, KnownIpv6 | null, 'capture' | 'block', RegExp]>([
    ['a server its subscription declares IPv6-capable is given IPv6', { supported: true, source: 'declared' }, 'capture', /subscription declares the server carries it/],
    ['a server the monitor verified IPv6-capable is given IPv6', { supported: true, source: 'verified' }, 'capture', /monitor found the server carries it/],
    ['a server declared without IPv6 has it refused', { supported: false, source: 'declared' }, 'block', /declares the server does not carry it/],
    ['a server the monitor found refusing IPv6 has it refused', { supported: false, source: 'verified' }, 'block', /monitor found the server does not carry it/],
    ['a verification that could not tell blocks (no leak, fast fallback)', { supported: null, source: 'verified' }, 'block', /not known to carry it/],
    ['nothing known yet blocks', null, 'block', /not known to carry it/],
  ])('%s', (_rule, known, ipv6, why) => {
    const decision = ipv6CaptureFor(known);
    expect(decision.ipv6).toBe(ipv6);
    expect(decision.why).toMatch(why);
  });
});
