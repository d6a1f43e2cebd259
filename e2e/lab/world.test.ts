import { describe, expect, it } from 'vitest';
import { serverConfig } from './v2ray-server';
import { blockSizes, buildWorld, carriesIpv6, exitAddress, relayAddress } from './world';

const options = { servers: 12, subscriptions: 3, seed: 1, latency: [20, 300] as [number, number] };

describe('buildWorld', () => {
  it('is the same world for the same seed, and another world for another seed', () => {
    expect(buildWorld(options)).toEqual(buildWorld(options));
    const other = buildWorld({ ...options, seed: 2 });
    expect(other.servers.map((s) => s.uuid)).not.toEqual(buildWorld(options).servers.map((s) => s.uuid));
  });

  it('covers the four protocols, WebSocket and TLS within 12 servers', () => {
    const world = buildWorld(options);
    expect(new Set(world.servers.map((s) => s.protocol))).toEqual(new Set(['vmess', 'vless', 'trojan', 'shadowsocks']));
    expect(world.servers.some((s) => s.network === 'ws')).toBe(true);
    expect(world.servers.some((s) => s.security === 'tls')).toBe(true);
    expect(world.servers.filter((s) => s.protocol === 'shadowsocks').every((s) => s.network === 'tcp' && s.security === 'none')).toBe(true);
  });

  it('gives every server its own exit and front address, never the user address, all in 127/8', () => {
    const world = buildWorld({ ...options, servers: 1000 });
    const exits = world.servers.map((s) => s.exitIp);
    const fronts = world.servers.map((s) => s.relayAddress);
    expect(new Set(exits).size).toBe(1000);
    expect(new Set(fronts).size).toBe(1000);
    expect(new Set([...exits, ...fronts]).size).toBe(2000);
    for (const address of [...exits, ...fronts]) {
      expect(address).toMatch(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
      expect(address.split('.').every((p) => Number(p) <= 255)).toBe(true);
      expect(address).not.toBe('127.0.0.1');
    }
  });

  it('follows the address plan', () => {
    expect(exitAddress(0)).toBe('127.0.0.11');
    expect(exitAddress(239)).toBe('127.0.0.250');
    expect(exitAddress(240)).toBe('127.1.0.1');
    expect(relayAddress(0)).toBe('127.0.2.1');
    expect(relayAddress(249)).toBe('127.0.2.250');
    expect(relayAddress(250)).toBe('127.0.3.1');
  });

  it('splits servers into subscriptions A, B, C… with ids A1, A2, …', () => {
    const world = buildWorld({ ...options, servers: 11 });
    expect(blockSizes(11, 3)).toEqual([4, 4, 3]);
    expect(world.subscriptions.map((s) => s.serverIds)).toEqual([
      ['A1', 'A2', 'A3', 'A4'],
      ['B1', 'B2', 'B3', 'B4'],
      ['C1', 'C2', 'C3'],
    ]);
    expect(world.servers.every((s) => s.id.startsWith(s.subscription))).toBe(true);
  });

  it('draws latencies from the range and varies the countries', () => {
    const world = buildWorld({ ...options, latency: [50, 60] });
    expect(world.servers.every((s) => s.latencyMs >= 50 && s.latencyMs <= 60)).toBe(true);
    expect(new Set(world.servers.map((s) => s.place.code)).size).toBe(12);
  });

  it('names servers readably, with emoji, Persian and Russian among them', () => {
    const names = buildWorld(options).servers.map((s) => s.name);
    expect(names.some((n) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(n))).toBe(true);
    expect(names.some((n) => /[\u0600-\u06FF]/.test(n))).toBe(true);
    expect(names.some((n) => /[\u0400-\u04FF]/.test(n))).toBe(true);
  });

  it.each([
    [{ servers: 0 }, /servers must be/],
    [{ servers: 1001 }, /servers must be/],
    [{ subscriptions: 0 }, /subscriptions must be/],
    [{ servers: 2, subscriptions: 3 }, /subscriptions must be/],
    [{ latency: [300, 20] as [number, number] }, /latency must be/],
  ])('rejects %j with a clear error', (bad, message) => {
    expect(() => buildWorld({ ...options, ...bad })).toThrow(message);
  });
});

describe('IPv6-capable servers', () => {
  it('one server in five carries IPv6 (A2 first), every protocol among them over 20 servers', () => {
    const world = buildWorld({ ...options, servers: 20 });
    const capable = world.servers.filter((s) => s.ipv6);
    expect(capable.map((s) => s.index)).toEqual([1, 6, 11, 16]);
    expect(capable.map((s) => s.id)[0]).toBe('A2');
    expect(new Set(capable.map((s) => s.protocol))).toEqual(new Set(['vmess', 'vless', 'trojan', 'shadowsocks']));
    expect(world.servers.every((s) => s.ipv6 === carriesIpv6(s.index))).toBe(true);
  });

  it('route IPv6 destinations to a freedom outbound leaving from ::1; the others have no IPv6 exit', () => {
    const servers = buildWorld(options).servers.slice(0, 3);
    const config = serverConfig(servers, [1001, 1002, 1003], null) as {
      outbounds: { tag: string; sendThrough?: string }[];
      routing: { rules: { inboundTag: string[]; ip?: string[]; outboundTag: string }[] };
    };
    expect(config.outbounds.filter((o) => o.sendThrough).map((o) => [o.tag, o.sendThrough])).toEqual([
      ['out-A1', '127.0.0.11'],
      ['out-A2', '127.0.0.12'],
      ['out-A3', '127.0.0.13'],
      ['out6-A2', '::1'],
    ]);
    // First match wins: A2's IPv6 rule comes before its catch-all.
    expect(config.routing.rules.map((r) => [r.inboundTag[0], r.ip?.[0] ?? '*', r.outboundTag])).toEqual([
      ['in-A1', '*', 'out-A1'],
      ['in-A2', '::/0', 'out6-A2'],
      ['in-A2', '*', 'out-A2'],
      ['in-A3', '*', 'out-A3'],
    ]);
  });
});
