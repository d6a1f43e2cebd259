import { describe, expect, it } from 'vitest';
import { cgroupPlacement, isPerAppNftPath, perAppCgroupName, perAppCgroupPaths } from './cgroup-placement';

const FS_WITH_V2 = 'nodev\tsysfs\nnodev\tcgroup\nnodev\tcgroup2\n';
const FS_WITHOUT_V2 = 'nodev\tsysfs\nnodev\tcgroup\n';
const UNIFIED = '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n';
const HYBRID = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');
const V1_ONLY = HYBRID.split('\n').slice(0, 3).join('\n');

describe('cgroupPlacement: where the per-app cgroups live, by what the machine has', () => {
  it.each([
    ['unified (cgroup v2 only)', UNIFIED, FS_WITH_V2, { kind: 'mounted', mountPoint: '/sys/fs/cgroup', beside: null }],
    ['hybrid: v2 at /sys/fs/cgroup/unified beside v1 (this machine)', HYBRID, FS_WITH_V2, { kind: 'mounted', mountPoint: '/sys/fs/cgroup/unified', beside: 'cgroup v1' }],
    ['v2 mounted elsewhere', `${V1_ONLY}\n50 23 0:40 / /mnt/cg\\0402 rw - cgroup2 none rw`, FS_WITH_V2, { kind: 'mounted', mountPoint: '/mnt/cg 2', beside: 'cgroup v1' }],
    ['a bind mount of a sub-cgroup is not the hierarchy', `${V1_ONLY}\n50 23 0:40 /sub /mnt/sub rw - cgroup2 none rw`, FS_WITH_V2, { kind: 'mount-own', mountPoint: '/run/steadfast-vpn-cgroup2' }],
    ['v1 only, the kernel has cgroup2: the helper mounts one', V1_ONLY, FS_WITH_V2, { kind: 'mount-own', mountPoint: '/run/steadfast-vpn-cgroup2' }],
    ['no cgroup2 in the kernel', V1_ONLY, FS_WITHOUT_V2, { kind: 'unavailable', reason: expect.stringMatching(/no cgroup v2.*\(uid:N\).*TUN capture/) }],
  ])('%s', (_, mountinfo, filesystems, placement) => {
    expect(cgroupPlacement(mountinfo, filesystems)).toEqual(placement);
  });

  it('a second instance’s own hierarchy is mounted apart from the product’s', () => {
    expect(cgroupPlacement(V1_ONLY, FS_WITH_V2, 'steadfast-vpn-cgroup-1a')).toEqual({ kind: 'mount-own', mountPoint: '/run/steadfast-vpn-cgroup-1a-cgroup2' });
  });
});

describe('perAppCgroupPaths: the leaf, and the path nftables resolves from /sys/fs/cgroup', () => {
  it.each([
    ['/sys/fs/cgroup', 'only', { dir: '/sys/fs/cgroup/steadfast-vpn/only', nftPath: 'steadfast-vpn/only', v2Path: '/steadfast-vpn/only' }],
    ['/sys/fs/cgroup/unified', 'bypass', { dir: '/sys/fs/cgroup/unified/steadfast-vpn/bypass', nftPath: 'unified/steadfast-vpn/bypass', v2Path: '/steadfast-vpn/bypass' }],
    ['/run/steadfast-vpn-cgroup2', 'only', { dir: '/run/steadfast-vpn-cgroup2/steadfast-vpn/only', nftPath: '../../../run/steadfast-vpn-cgroup2/steadfast-vpn/only', v2Path: '/steadfast-vpn/only' }],
  ] as const)('%s, %s', (mountPoint, list, paths) => {
    expect(perAppCgroupPaths(mountPoint, 'steadfast-vpn', list)).toEqual(paths);
    expect(isPerAppNftPath(paths.nftPath)).toBe(true);
  });

  it('only paths ending in a per-app leaf reach the rules', () => {
    for (const bad of ['../../etc', 'steadfast-vpn/other', 'a"b/steadfast-vpn/only', './steadfast-vpn/only', 'steadfast-vpn/only/x']) expect(isPerAppNftPath(bad)).toBe(false);
  });
});

describe('perAppCgroupName', () => {
  it('is the product’s own unless a second instance names one that starts with it', () => {
    expect(perAppCgroupName(undefined)).toBe('steadfast-vpn');
    expect(perAppCgroupName('steadfast-vpn-cgroup-1a2b')).toBe('steadfast-vpn-cgroup-1a2b');
    for (const bad of ['../x', 'other', 'steadfast-vpn/x', 'steadfast-vpn-', 'steadfast-vpn-A']) expect(() => perAppCgroupName(bad)).toThrow(/invalid per-app cgroup name/);
  });
});
