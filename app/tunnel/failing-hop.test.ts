import { describe, expect, it } from 'vitest';
import { sampleServer } from '../../shared/domain/sample-servers';
import { TUNNEL_TAGS } from '../core';
import { failingHop } from './failing-hop';

const server = sampleServer('vless', 'tcp', { address: 'edge.example', port: 8443 });
const upstream = sampleServer('trojan', 'tcp', { address: '2001:db8::7', port: 443 });

describe('which hop a failure line is about', () => {
  it.each([
    ["the server's tag", TUNNEL_TAGS.proxy, null, upstream, false],
    ["the upstream's tag", TUNNEL_TAGS.via, null, upstream, true],
    ['another outbound by tag', 'direct', 'edge.example:8443', upstream, null],
    ["no tag, the server's host:port", null, 'edge.example:8443', upstream, false],
    ["no tag, the server's bare host", null, 'edge.example', upstream, false],
    ["no tag, the upstream's bracketed IPv6", null, '[2001:db8::7]:443', upstream, true],
    ['no tag, an upstream address without a chain', null, '[2001:db8::7]:443', undefined, null],
    ['no tag, another address', null, 'elsewhere.example:443', upstream, null],
    ['no tag and no address', null, null, upstream, null],
  ] as const)('%s', (_name, tag, address, via, hop) => {
    expect(failingHop(tag, address, server, via)).toBe(hop);
  });
});
