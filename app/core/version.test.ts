import { describe, expect, it } from 'vitest';
import { atLeast, compareVersions, parseCoreVersion } from './version';

describe('parseCoreVersion', () => {
  it.each([
    ['V2Ray 4.34.0 (user) 20230518-074445 (go1.19.8 linux/amd64)\nA unified platform for anti-censorship.\n', 'v2ray', '4.34.0'],
    ['V2Ray 4.22.1 (V2Fly, a community-driven edition of V2Ray.) Custom (go1.13.5 linux/amd64)\nA unified platform for anti-censorship.', 'v2ray', '4.22.1'],
    ['V2Ray 5.16.1 (V2Fly, a community-driven edition of V2Ray.) Custom (go1.22.4 linux/amd64)\nA unified platform for anti-censorship.', 'v2ray', '5.16.1'],
    ['Xray 1.8.24 (Xray, Penetrates Everything.) 3b2d10f (go1.22.5 linux/amd64)\nA unified platform for anti-censorship.', 'xray', '1.8.24'],
    ['Xray 25.3.6 (Xray, Penetrates Everything.) 2c0a9e4 (go1.24.1 linux/amd64)\nA unified platform for anti-censorship.', 'xray', '25.3.6'],
    ['Xray 1.8.0 (Xray, Penetrates Everything.) Custom (go1.20.2 windows/amd64)\r\nA unified platform for anti-censorship.\r\n', 'xray', '1.8.0'],
    ['sing-box version 1.10.1\n\nEnvironment: go1.23.1 linux/amd64\nTags: with_gvisor,with_quic,with_dhcp,with_wireguard,with_utls,with_reality_server,with_clash_api\nRevision: 4c1e3f2\nCGO: disabled\n', 'sing-box', '1.10.1'],
    ['sing-box version 1.11.0-beta.12\n\nEnvironment: go1.23.4 darwin/arm64', 'sing-box', '1.11.0-beta.12'],
    // Some builds log a line before the banner.
    ['2024/01/01 00:00:00 [Info] starting\nXray 24.12.18 (Xray, Penetrates Everything.) 3c4a1e2 (go1.23.4 linux/arm64)', 'xray', '24.12.18'],
  ])('reads %j', (banner, family, version) => {
    expect(parseCoreVersion(banner)).toEqual({ family, version });
  });

  it.each([
    ['', 'no output'],
    ['flag provided but not defined: -version\nUsage of v2ray:', 'a usage message'],
    ['Error: unknown shorthand flag: \'v\' in -version', "sing-box's complaint about -version"],
    ['bash: xray: command not found', 'a shell error'],
  ])('refuses %j (%s)', (text) => {
    expect(parseCoreVersion(text)).toBeNull();
  });
});

describe('compareVersions', () => {
  it.each([
    ['4.34.0', '4.34.0', 0],
    ['4.34.0', '4.36.0', -1],
    ['5.0.0', '4.45.2', 1],
    ['1.8.24', '24.9.30', -1],
    ['25.3.6', '24.12.18', 1],
    ['1.8.9', '1.8.16', -1],
    ['1.11.0-beta.12', '1.11.0', -1],
    ['1.11.0-beta.2', '1.11.0-beta.12', -1],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });

  it('atLeast is inclusive', () => {
    expect(atLeast('1.8.0', '1.8.0')).toBe(true);
    expect(atLeast('1.7.5', '1.8.0')).toBe(false);
  });
});
