import { describe, expect, it } from 'vitest';
import { icmpPing, parsePingTime, pingCommand, unavailableReason } from './icmp';

describe('ICMP through the system ping', () => {
  it('builds one echo with a deadline per platform', () => {
    expect(pingCommand('127.0.0.1', 5000, 'linux')).toEqual({ file: 'ping', args: ['-c', '1', '-W', '5', '127.0.0.1'] });
    expect(pingCommand('::1', 1500, 'linux')).toEqual({ file: 'ping', args: ['-c', '1', '-W', '2', '-6', '::1'] });
    expect(pingCommand('127.0.0.1', 5000, 'darwin')).toEqual({ file: 'ping', args: ['-c', '1', '-W', '5000', '127.0.0.1'] });
    expect(pingCommand('127.0.0.1', 5000, 'win32')).toEqual({ file: 'ping', args: ['-n', '1', '-w', '5000', '127.0.0.1'] });
  });

  it('reads the round trip from iputils, busybox, macOS and Windows output', () => {
    expect(parsePingTime('64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.521 ms')).toBe(0.5);
    expect(parsePingTime('64 bytes from 1.1.1.1: seq=0 ttl=57 time=12.345 ms')).toBe(12.3);
    expect(parsePingTime('Reply from 1.1.1.1: bytes=32 time=14ms TTL=57')).toBe(14);
    expect(parsePingTime('Reply from 127.0.0.1: bytes=32 time<1ms TTL=128')).toBe(1);
    expect(parsePingTime('Request timed out.')).toBeNull();
  });

  it('tells "not permitted" and "not installed" from "no reply"', () => {
    expect(unavailableReason('ping: socket: Operation not permitted', 2)).toBe('the system ping is not permitted to send ICMP here');
    expect(unavailableReason('', 127)).toBe('the system ping command is not installed');
    expect(unavailableReason('1 packets transmitted, 0 received, 100% packet loss', 1)).toBeNull();
  });

  it('pings loopback with the real ping where present', async () => {
    const result = await icmpPing('127.0.0.1', 2000);
    if ('unavailable' in result) {
      expect(result.reason).toMatch(/ping/);
    } else {
      expect(result).toMatchObject({ ok: true });
      expect(result.ok && result.delayMs).toBeLessThan(1000);
    }
  });

  it('reports the method unavailable when ping is missing', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(await icmpPing('127.0.0.1', 1000)).toEqual({ ok: false, unavailable: true, reason: 'the system ping command is not installed' });
    } finally {
      process.env.PATH = saved;
    }
  });
});
