import { describe, expect, it } from 'vitest';
import type { ProbeFailure } from '../../../shared/domain/measurement';
import { IPV6_DETAIL_MAX, clipDetail, ipv6HostOf, ipv6Status, judgeIpv6Fetch, needsIpv6Check, type VerifiedIpv6, viaIpv6Address } from './ipv6';

const known = (fromCache: boolean): VerifiedIpv6 => ({ supported: true, detail: 'answered', at: 1, fromCache });

describe('which servers the IPv6 check verifies (verify_ipv6, once a run; declared wins)', () => {
  it.each([
    ['verify_ipv6 off', false, undefined, null, false],
    ['nothing known yet', true, undefined, null, true],
    ['declared supported', true, true, null, false],
    ['declared refused', true, false, null, false],
    ['verified in this run', true, undefined, known(false), false],
    ['only a cached result from the last run', true, undefined, known(true), true],
  ] as const)('%s', (_title, verify, declared, result, expected) => {
    expect(needsIpv6Check(verify, declared, result)).toBe(expected);
  });
});

describe('the status field', () => {
  it('a declaration is known from the start and wins over a verification', () => {
    expect(ipv6Status(true, known(false))).toEqual({ supported: true, source: 'declared', detail: 'the subscription declares IPv6 support (ipv6=1)', at: null, fromCache: false });
    expect(ipv6Status(false, null)).toMatchObject({ supported: false, source: 'declared' });
  });

  it('a verification is shown as verified, from cache when it is', () => {
    expect(ipv6Status(undefined, known(true))).toEqual({ supported: true, source: 'verified', detail: 'answered', at: 1, fromCache: true });
    expect(ipv6Status(undefined, null)).toBeNull();
  });
});

describe('the test URL host and the URL fetched via its IPv6 address', () => {
  it.each([
    ['https://www.gstatic.com/generate_204', { kind: 'name', host: 'www.gstatic.com' }],
    ['http://localhost:41234/generate_204', { kind: 'name', host: 'localhost' }],
    ['http://[2001:db8::5]:8080/x', { kind: 'ipv6', host: '2001:db8::5' }],
    ['http://127.0.0.1:9/generate_204', { kind: 'none', host: '127.0.0.1', reason: 'the test URL names an IPv4 address (127.0.0.1), which has no IPv6 address to try' }],
    ['not a url', { kind: 'none', host: 'not a url', reason: 'the test URL not a url does not parse' }],
  ])('%s', (url, expected) => {
    expect(ipv6HostOf(url)).toEqual(expected);
  });

  it.each([
    ['https://www.gstatic.com/generate_204', '2001:db8::1', 'https://[2001:db8::1]/generate_204', 'www.gstatic.com'],
    ['http://localhost:41234/generate_204?x=1', '::1', 'http://[::1]:41234/generate_204?x=1', 'localhost:41234'],
    ['https://cp.example.com:8443/generate_204', '2001:db8::2', 'https://[2001:db8::2]:8443/generate_204', 'cp.example.com:8443'],
  ])('%s via %s', (url, address, expectedUrl, expectedHost) => {
    expect(viaIpv6Address(url, address)).toEqual({ url: expectedUrl, hostHeader: expectedHost });
  });
});

describe('what a fetch via the IPv6 address means', () => {
  it('any HTTP answer came over IPv6 through the server: supported, whatever the status', () => {
    expect(judgeIpv6Fetch({ ok: true, status: 204, elapsedMs: 81.4 }, '::1', false)).toEqual({ supported: true, detail: 'answered HTTP 204 via ::1 in 81 ms' });
    expect(judgeIpv6Fetch({ ok: true, status: 403, elapsedMs: 12 }, '::1', false).supported).toBe(true);
  });

  it.each<[ProbeFailure, boolean | null]>([
    ['timeout', false],
    ['refused', false],
    ['reset', false],
    ['network', false],
    ['handshake', false],
    ['dns', false],
    ['tls', null],
    ['unsupported', null],
    ['unknown', null],
  ])('a %s failure: %s', (kind, expected) => {
    const judged = judgeIpv6Fetch({ ok: false, error: { kind, message: `why ${kind}` }, elapsedMs: 5 }, '2001:db8::1', false);
    expect(judged.supported).toBe(expected);
    expect(judged.detail).toContain(`why ${kind}`);
  });

  it('refused names the address and the reason in the check\'s words, keeping the core\'s own detail', () => {
    expect(judgeIpv6Fetch({ ok: false, error: { kind: 'network', message: 'the connection closed before any answer' }, elapsedMs: 5 }, '::1', false)).toEqual({
      supported: false,
      detail: 'no answer via ::1: the connection failed (the connection closed before any answer)',
    });
    // The prober's URL-test explanation (credentials) is wrong here: the server just answered over IPv4.
    const handshake = { kind: 'handshake' as const, message: 'the server closed the connection without answering (credentials rejected, or not this protocol): connection ends > failed to read IV > EOF' };
    expect(judgeIpv6Fetch({ ok: false, error: handshake, elapsedMs: 5 }, '::1', false).detail).toBe('no answer via ::1: the server closed the connection (connection ends > failed to read IV > EOF)');
    expect(judgeIpv6Fetch({ ok: false, error: { kind: 'timeout', message: 'no answer within 5000 ms' }, elapsedMs: 5000 }, '::1', false).detail).toBe(
      'no answer via ::1: no answer in time (no answer within 5000 ms)',
    );
  });

  it('a failure while the server stopped answering its own URL tests says nothing about IPv6', () => {
    expect(judgeIpv6Fetch({ ok: false, error: { kind: 'timeout', message: 'no answer within 5000 ms' }, elapsedMs: 5000 }, '::1', true)).toEqual({
      supported: null,
      detail: 'the server stopped answering during the check (no answer within 5000 ms)',
    });
  });

  it('details are clipped for the cache and the UI', () => {
    expect(clipDetail('x'.repeat(2000))).toHaveLength(IPV6_DETAIL_MAX);
    expect(clipDetail('short')).toBe('short');
  });
});
