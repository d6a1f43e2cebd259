import { describe, expect, it } from 'vitest';
import { captureRuleset } from '../../linux/policy/capture-plan';
import { nftPerAppLines, nftPerAppOf, perAppPrepareCommands } from './nft-rules';

const settings = (mode: 'bypass' | 'only', entries: string[]) => ({ mode, bypass: mode === 'bypass' ? entries : [], only: mode === 'only' ? entries : [] });

describe('nftPerAppOf: what the TPROXY capture can match of the list', () => {
  it.each([
    ['uids only', settings('bypass', ['uid:1002', 'uid:1001', 'uid:1002']), true, { mode: 'bypass', uids: [1001, 1002], cgroup: null }, []],
    ['programs go to the cgroup of the list', settings('only', ['/usr/bin/cursor', 'uid:1001']), true, { mode: 'only', uids: [1001], cgroup: 'steadfast-vpn/only' }, []],
    [
      'without cgroup v2, programs are said to be unmatched',
      settings('bypass', ['/usr/bin/steam', 'uid:1001']),
      false,
      { mode: 'bypass', uids: [1001], cgroup: null },
      [{ entry: '/usr/bin/steam', reason: expect.stringMatching(/no cgroup v2 .*\(uid:N\)/) }],
    ],
    ['an empty bypass list changes nothing', settings('bypass', []), true, null, []],
    ['an empty only list sends nothing through the VPN', settings('only', []), true, { mode: 'only', uids: [], cgroup: null }, []],
    ['off', { mode: 'off' as const, bypass: ['uid:1'], only: [] }, true, null, []],
  ])('%s', (_, perApp, cgroupV2, plan, skipped) => {
    expect(nftPerAppOf(perApp, cgroupV2)).toEqual({ plan, skipped });
  });
});

describe('nftPerAppLines', () => {
  it.each([
    ['bypass by uid', { mode: 'bypass', uids: [1001, 1002], cgroup: null }, ['    meta skuid { 1001, 1002 } return']],
    ['bypass by uid and cgroup', { mode: 'bypass', uids: [1001], cgroup: 'steadfast-vpn/bypass' }, ['    meta skuid { 1001 } return', '    socket cgroupv2 level 2 "steadfast-vpn/bypass" return']],
    ['only by uid', { mode: 'only', uids: [1001], cgroup: null }, ['    meta skuid != { 1001 } return']],
    ['only by uid or cgroup: neither returns', { mode: 'only', uids: [1001], cgroup: 'steadfast-vpn/only' }, ['    meta skuid != { 1001 } socket cgroupv2 level 2 != "steadfast-vpn/only" return']],
    ['only, nothing listed: everything returns', { mode: 'only', uids: [], cgroup: null }, ['    return']],
  ] as const)('%s', (_, plan, lines) => {
    expect(nftPerAppLines({ ...plan, uids: [...plan.uids] })).toEqual(lines);
  });

  it('refuses what the helper must never write', () => {
    expect(() => nftPerAppLines({ mode: 'bypass', uids: [-1], cgroup: null })).toThrow(/uids/);
    expect(() => nftPerAppLines({ mode: 'bypass', uids: [], cgroup: '../../etc' as never })).toThrow(/cgroup/);
    expect(() => nftPerAppLines({ mode: 'all' as never, uids: [], cgroup: null })).toThrow(/mode/);
  });

  it('the cgroup is made before the rules that name it', () => {
    expect(perAppPrepareCommands({ mode: 'only', uids: [], cgroup: 'steadfast-vpn/only' })).toEqual([{ file: 'mkdir', args: ['-p', '/sys/fs/cgroup/steadfast-vpn/only'] }]);
    expect(perAppPrepareCommands({ mode: 'only', uids: [1], cgroup: null })).toEqual([]);
  });

  it('sit in the TPROXY output chain right after the core’s own packets are let through', () => {
    const ruleset = captureRuleset({ method: 'tproxy', port: 12345, coreMark: 0x5347, bypassLan: true, perApp: { mode: 'bypass', uids: [1001], cgroup: null } });
    const output = ruleset.slice(ruleset.indexOf('chain output'), ruleset.indexOf('chain prerouting')).split('\n');
    expect(output.slice(2, 4)).toEqual(['    meta mark 0x00005347 return', '    meta skuid { 1001 } return']);
    const redirect = captureRuleset({ method: 'redirect', port: 12345, coreMark: 0x5347, bypassLan: true, perApp: { mode: 'only', uids: [1001], cgroup: null } });
    expect(redirect).toContain('    meta mark 0x00005347 return\n    meta skuid != { 1001 } return\n');
  });
});
