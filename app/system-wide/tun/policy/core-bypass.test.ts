import { describe, expect, it } from 'vitest';
import { coreBypass } from './core-bypass';

const ip = { address: '203.0.113.7' };
const ip6 = { address: '2001:db8::7' };
const named = { address: 'edge.example.net' };

describe('how the core’s own connections skip the TUN device', () => {
  it.each([
    ['Linux, a core that may mark, servers by address', { linux: true, coreMayMark: true, hops: [ip] }, 'mark'],
    ['an IPv6 literal is an address too', { linux: true, coreMayMark: true, hops: [ip6, ip] }, 'mark'],
    ['a core that may not mark', { linux: true, coreMayMark: false, hops: [ip] }, 'path'],
    ['Windows or macOS', { linux: false, coreMayMark: true, hops: [ip] }, 'path'],
    ['a server given by name: its lookups carry no mark', { linux: true, coreMayMark: true, hops: [named] }, 'path'],
    ['a chain whose front is given by name', { linux: true, coreMayMark: true, hops: [ip, named] }, 'path'],
  ] as const)('%s → by %s', (_label, o, by) => {
    expect(coreBypass({ ...o, mark: 0x5347 }).by).toBe(by);
  });

  it('says why when it falls back to the path', () => {
    expect(coreBypass({ linux: true, coreMayMark: true, mark: 1, hops: [named] })).toEqual({ by: 'path', why: "the server is given by name (edge.example.net), and the core's lookups of it carry no mark" });
    expect(coreBypass({ linux: true, coreMayMark: true, mark: 0x5347, hops: [ip] })).toEqual({ by: 'mark', mark: 0x5347 });
  });
});
