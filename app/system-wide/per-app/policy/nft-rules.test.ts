import { describe, expect, it } from 'vitest';
import { captureRuleset } from '../../linux/policy/capture-plan';
import { nftPerAppChains, nftPerAppLines, perAppRequestOf } from './nft-rules';

const settings = (mode: 'bypass' | 'only', entries: string[]) => ({ mode, bypass: mode === 'bypass' ? entries : [], only: mode === 'only' ? entries : [] });

describe('perAppRequestOf: what the app asks the helper to match', () => {
  it.each([
    ['uids, each once and in order', settings('bypass', ['uid:1002', 'uid:1001', 'uid:1002']), { mode: 'bypass', uids: [1001, 1002], programs: [] }],
    ['programs by path and name beside uids', settings('only', ['/usr/bin/cursor', 'uid:1001', 'discord', '/usr/bin/cursor']), { mode: 'only', uids: [1001], programs: ['/usr/bin/cursor', 'discord'] }],
    ['an empty bypass list changes nothing', settings('bypass', []), null],
    ['an empty only list sends nothing through the VPN', settings('only', []), { mode: 'only', uids: [], programs: [] }],
    ['off', { mode: 'off' as const, bypass: ['uid:1'], only: [] }, null],
  ])('%s', (_, perApp, request) => {
    expect(perAppRequestOf(perApp)).toEqual(request);
  });
});

describe('nftPerAppLines and nftPerAppChains', () => {
  it.each([
    ['bypass by uid', { mode: 'bypass', uids: [1001, 1002], cgroup: null }, ['    meta skuid { 1001, 1002 } return'], []],
    [
      'bypass by uid and cgroup (hybrid: the hierarchy at /sys/fs/cgroup/unified)',
      { mode: 'bypass', uids: [1001], cgroup: 'unified/steadfast-vpn/bypass' },
      ['    meta skuid { 1001 } return', '    socket cgroupv2 level 2 "unified/steadfast-vpn/bypass" return'],
      [],
    ],
    [
      'only: the listed return to be captured, everything else is let go',
      { mode: 'only', uids: [1001], cgroup: 'steadfast-vpn/only' },
      ['    jump per_app_only'],
      ['  chain per_app_only {', '    meta skuid { 1001 } return', '    socket cgroupv2 level 2 "steadfast-vpn/only" return', '    accept', '  }'],
    ],
    [
      'only, a hierarchy the helper mounted outside /sys/fs/cgroup',
      { mode: 'only', uids: [], cgroup: '../../../run/steadfast-vpn-cgroup2/steadfast-vpn/only' },
      ['    jump per_app_only'],
      ['  chain per_app_only {', '    socket cgroupv2 level 2 "../../../run/steadfast-vpn-cgroup2/steadfast-vpn/only" return', '    accept', '  }'],
    ],
    ['only, nothing listed: everything is let go', { mode: 'only', uids: [], cgroup: null }, ['    jump per_app_only'], ['  chain per_app_only {', '    accept', '  }']],
  ] as const)('%s', (_, plan, lines, chains) => {
    const copy = { ...plan, uids: [...plan.uids] };
    expect(nftPerAppLines(copy)).toEqual(lines);
    expect(nftPerAppChains(copy)).toEqual(chains);
  });

  it('"only" never negates the cgroup test: a socket shallower than the level matches neither == nor !=', () => {
    const text = [...nftPerAppLines({ mode: 'only', uids: [1001], cgroup: 'steadfast-vpn/only' }), ...nftPerAppChains({ mode: 'only', uids: [1001], cgroup: 'steadfast-vpn/only' })].join('\n');
    expect(text).not.toContain('!=');
  });

  it('refuses what the helper must never write', () => {
    expect(() => nftPerAppLines({ mode: 'bypass', uids: [-1], cgroup: null })).toThrow(/uids/);
    expect(() => nftPerAppLines({ mode: 'bypass', uids: [], cgroup: '../../etc' })).toThrow(/cgroup/);
    expect(() => nftPerAppLines({ mode: 'bypass', uids: [], cgroup: 'steadfast-vpn/only' })).toThrow(/cgroup/);
    expect(() => nftPerAppLines({ mode: 'bypass', uids: [], cgroup: 'x" accept; "/steadfast-vpn/bypass' })).toThrow(/cgroup/);
    expect(() => nftPerAppLines({ mode: 'all' as never, uids: [], cgroup: null })).toThrow(/mode/);
  });

  it('sit in the TPROXY output chain right after the core’s own packets are let through, and the only-chain in the table', () => {
    const ruleset = captureRuleset({ method: 'tproxy', port: 12345, coreMark: 0x5347, bypassLan: true, perApp: { mode: 'bypass', uids: [1001], cgroup: null } });
    const output = ruleset.slice(ruleset.indexOf('chain output'), ruleset.indexOf('chain prerouting')).split('\n');
    expect(output.slice(2, 4)).toEqual(['    meta mark 0x00005347 return', '    meta skuid { 1001 } return']);
    const only = captureRuleset({ method: 'tproxy', port: 12345, coreMark: 0x5347, bypassLan: true, perApp: { mode: 'only', uids: [], cgroup: 'unified/steadfast-vpn/only' } });
    expect(only).toContain('    meta mark 0x00005347 return\n    jump per_app_only\n');
    expect(only).toMatch(/ {2}chain per_app_only \{\n {4}socket cgroupv2 level 2 "unified\/steadfast-vpn\/only" return\n {4}accept\n {2}\}\n\}\n$/);
    const redirect = captureRuleset({ method: 'redirect', port: 12345, coreMark: 0x5347, bypassLan: true, perApp: { mode: 'only', uids: [1001], cgroup: null } });
    expect(redirect).toContain('    meta mark 0x00005347 return\n    jump per_app_only\n');
  });
});
