import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cidrContains, formatIpv6, parseIpv6 } from '../../../shared/cidr';
import { cidrsOf, dateFromVersion, rangesByCountry, regionCidrs } from './build';

describe('IP ranges to CIDR blocks', () => {
  it('covers an inclusive range exactly with the fewest aligned blocks', () => {
    const ranges = rangesByCountry('1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.3.255,IR\n1.0.4.0,1.0.4.9,IR\n', ['IR'], 4);
    expect(cidrsOf(ranges.get('IR') ?? [], 4)).toEqual(['1.0.1.0/24', '1.0.2.0/23', '1.0.4.0/29', '1.0.4.8/31']);
  });

  it('joins touching ranges before cutting them into blocks', () => {
    const ranges = rangesByCountry('10.0.0.0,10.0.0.127,RU\n10.0.0.128,10.0.0.255,RU\n', ['RU'], 4);
    expect(cidrsOf(ranges.get('RU') ?? [], 4)).toEqual(['10.0.0.0/24']);
  });

  it('handles IPv6, compressed as RFC 5952 writes it', () => {
    const ranges = rangesByCountry('2001:790::,2001:790:ffff:ffff:ffff:ffff:ffff:ffff,IR\n', ['IR'], 6);
    expect(cidrsOf(ranges.get('IR') ?? [], 6)).toEqual(['2001:790::/32']);
    expect(formatIpv6(parseIpv6('2001:db8:0:0:1:0:0:1') ?? 0n)).toBe('2001:db8::1:0:0:1');
    expect(parseIpv6('::ffff:1.2.3.4')).toBe(0xffff01020304n);
  });

  it('reads the date from the package version', () => {
    expect(dateFromVersion('2.3.2026061719')).toBe('2026-06-17');
    expect(dateFromVersion('1.0.0')).toBeNull();
  });

  it('from the shipped package: a known address of each region matches, a foreign one does not', () => {
    const dir = dirname(createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country/package.json'));
    const data = regionCidrs(
      readFileSync(join(dir, 'geo-whois-asn-country-ipv4.csv'), 'utf8'),
      readFileSync(join(dir, 'geo-whois-asn-country-ipv6.csv'), 'utf8'),
      ['ir', 'ru', 'cn'],
    );
    const inRegion = (region: string, address: string) => {
      const r = data[region];
      return [...(r?.ipv4 ?? []), ...(r?.ipv6 ?? [])].some((cidr) => cidrContains(cidr, address));
    };
    // TCI (Iran), Yandex DNS (Russia), AliDNS (China), and their IPv6 space.
    expect(inRegion('ir', '2.176.10.20')).toBe(true);
    expect(inRegion('ir', '2001:790::1')).toBe(true);
    expect(inRegion('ru', '77.88.8.8')).toBe(true);
    expect(inRegion('ru', '2a02:6b8::1')).toBe(true);
    expect(inRegion('cn', '223.5.5.5')).toBe(true);
    for (const region of ['ir', 'ru', 'cn']) {
      expect(inRegion(region, '8.8.8.8')).toBe(false);
      expect(inRegion(region, '2001:4860:4860::8888')).toBe(false);
    }
    expect(inRegion('ir', '77.88.8.8')).toBe(false);
  });
});
