import { describe, expect, it } from 'vitest';
import { addressPrefix, exitNetworkOf, normaliseAsn } from './exit-network';
import { failureStreak, type HereResult } from './here';
import { reachabilityRules } from './rules';

const S = 1000;
const NOW = 5_000_000;
const rules = reachabilityRules({ intervalMs: 5 * 60 * S, urlTestTimeoutMs: 5 * S });
const r = (agoS: number, ok: boolean): HereResult => ({ at: NOW - agoS * S, ok });

describe('reachabilityRules', () => {
  it('derives every number from the monitor interval', () => {
    expect(reachabilityRules({ intervalMs: 5 * 60 * S, urlTestTimeoutMs: 5 * S })).toMatchObject({
      freshnessMs: 600 * S,
      streakFailures: 3,
      streakMinSpanMs: 60 * S,
      confirmSpacingMs: 30 * S,
      vantageAfterFailures: 2,
      maxVantagesPerRound: 3,
      roundIntervalMs: 300 * S,
      maxProbesPerWindow: 30,
      vantageTimeoutMs: 10 * S,
    });
    // The lab's 5 s interval: the same shape, scaled.
    expect(reachabilityRules({ intervalMs: 5 * S, urlTestTimeoutMs: S })).toMatchObject({ freshnessMs: 10 * S, streakMinSpanMs: S, confirmSpacingMs: 500, roundIntervalMs: 5 * S, vantageTimeoutMs: 2 * S });
  });
});

describe('failureStreak', () => {
  it.each([
    ['no results', [], 0, false],
    ['a single failure never counts', [r(100, true), r(5, false)], 1, false],
    ['3 failures over 70 s count', [r(100, true), r(75, false), r(40, false), r(5, false)], 3, true],
    ['3 failures over 20 s are a burst', [r(25, false), r(15, false), r(5, false)], 3, false],
    ['an answer ends the streak', [r(75, false), r(40, false), r(20, true), r(5, false)], 1, false],
    ['failures from before a gap longer than the freshness window do not count', [r(700, false), r(650, false), r(5, false)], 1, false],
    ['a long outage keeps one streak: a failure every interval for 15 min', [r(905, false), r(605, false), r(305, false), r(5, false)], 4, true],
    ['a stale latest result is no streak at all', [r(900, false), r(800, false), r(700, false)], 0, false],
    ['one result seen twice (monitor + a joined confirmation) is one failure', [r(75, false), r(75, false), r(5, false)], 2, false],
  ] as const)('%s', (_name, results, failures, counts) => {
    const streak = failureStreak(results as readonly HereResult[], NOW, rules);
    expect([streak.failures, streak.counts]).toEqual([failures, counts]);
  });

  it('an answer and a failure at the same instant: the answer wins', () => {
    expect(failureStreak([r(5, false), r(5, true)], NOW, rules).latest?.ok).toBe(true);
  });
});

describe('exit networks', () => {
  it.each([
    ['AS14061', 'AS14061'],
    ['as24940 Hetzner Online GmbH', 'AS24940'],
    [16509, 'AS16509'],
    ['', null],
    ['AS0', null],
    ['Hetzner', null],
  ] as const)('normaliseAsn(%j) = %j', (input, expected) => {
    expect(normaliseAsn(input)).toBe(expected);
  });

  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd::/48'],
    ['2001:db8::1', '2001:db8:0::/48'],
    ['999.1.1.1', null],
    ['example.com', null],
  ] as const)('addressPrefix(%s) = %j', (ip, expected) => {
    expect(addressPrefix(ip)).toBe(expected);
  });

  it('ASN first, then the exit /24, then the front address when no IP info is known', () => {
    expect(exitNetworkOf({ ip: '127.0.0.12', asn: 'AS14061', org: 'DigitalOcean, LLC', countryCode: 'NL', source: 'ipapi.co' }, '127.0.2.2')).toMatchObject({
      key: 'AS14061',
      kind: 'asn',
      label: 'AS14061 DigitalOcean, LLC, NL',
    });
    expect(exitNetworkOf({ ip: '198.51.100.9', countryCode: 'DE', source: 'cloudflare-trace' }, 'de.example')).toMatchObject({ key: 'net:198.51.100.0/24', kind: 'prefix' });
    expect(exitNetworkOf(null, '198.51.100.9')).toMatchObject({ key: 'front:198.51.100.0/24', kind: 'unknown', label: 'exit network unknown' });
    expect(exitNetworkOf(null, 'Fi.Example.net').key).toBe('front:fi.example.net');
  });
});
