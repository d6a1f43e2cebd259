/**
 * Where the TPROXY capture's per-app cgroups live on this machine, decided from what it has
 * (/proc/self/mountinfo and /proc/filesystems), as data:
 * - a cgroup v2 hierarchy mounted anywhere: there — at /sys/fs/cgroup on a unified (v2-only)
 *   system, at /sys/fs/cgroup/unified beside cgroup v1 on a hybrid one;
 * - none mounted but a kernel that has cgroup2 (a v1-only system): the helper mounts one of its
 *   own (ownCgroup2Mount) for the session and unmounts it after; the v1 controllers stay where
 *   they are (a v2 hierarchy without controllers takes nothing from v1);
 * - a kernel without cgroup2: programs by path or name cannot be told apart by nftables, and the
 *   helper says so for each entry (uid:N still works).
 * nftables reads a `socket cgroupv2` path relative to /sys/fs/cgroup, wherever the hierarchy is
 * mounted (nftables' SYSFS_CGROUPSV2_PATH), so the rule's path is made relative to that.
 */
/** The cgroup (under the hierarchy's root) that holds the per-app lists' leaves. */
export const PER_APP_CGROUP_NAME = 'steadfast-vpn';
/** Where the helper mounts a cgroup v2 hierarchy of its own when the machine has none mounted (by the cgroup's name). */
export const ownCgroup2Mount = (name: string) => `/run/${name}-cgroup2`;
/** What nftables resolves `socket cgroupv2` paths from. */
export const NFT_CGROUP_BASE = '/sys/fs/cgroup';
/** name/list: the leaf is two levels under the hierarchy's root, which is what the rule's `level` counts. */
export const PER_APP_CGROUP_LEVEL = 2;

export type CgroupPlacement =
  | { kind: 'mounted'; mountPoint: string; beside: 'cgroup v1' | null }
  | { kind: 'mount-own'; mountPoint: string }
  | { kind: 'unavailable'; reason: string };

interface Mount {
  root: string;
  mountPoint: string;
  fsType: string;
}

/** mountinfo escapes blanks and backslashes in octal (\040). */
const unescape = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const fsType = after.split(' ')[0];
    if (fields.length < 5 || !fsType) continue;
    mounts.push({ root: unescape(fields[3]!), mountPoint: unescape(fields[4]!), fsType });
  }
  return mounts;
}

export function cgroupPlacement(mountinfo: string, filesystems: string, name = PER_APP_CGROUP_NAME): CgroupPlacement {
  const mounts = parseMountinfo(mountinfo);
  const beside = mounts.some((m) => m.fsType === 'cgroup') ? ('cgroup v1' as const) : null;
  // A bind mount of a sub-cgroup (root other than /) would give paths that are not the hierarchy's.
  const v2 = mounts.filter((m) => m.fsType === 'cgroup2' && m.root === '/');
  const preferred = v2.find((m) => m.mountPoint === NFT_CGROUP_BASE) ?? v2.find((m) => m.mountPoint.startsWith(`${NFT_CGROUP_BASE}/`)) ?? v2[0];
  if (preferred) return { kind: 'mounted', mountPoint: preferred.mountPoint, beside };
  if (/^nodev\s+cgroup2$/m.test(filesystems)) return { kind: 'mount-own', mountPoint: ownCgroup2Mount(name) };
  return { kind: 'unavailable', reason: 'this kernel has no cgroup v2, so nftables cannot tell programs apart: the TPROXY capture can match a program only by its user (uid:N); or use the TUN capture' };
}

/** The list's leaf: its directory, and the path nftables is given for it. */
export function perAppCgroupPaths(mountPoint: string, name: string, list: 'bypass' | 'only'): { dir: string; nftPath: string; v2Path: string } {
  const dir = `${mountPoint.replace(/\/+$/, '')}/${name}/${list}`;
  // mountinfo's mount points are absolute and normalised; a hierarchy outside the base is reached by climbing out of it.
  const nftPath = dir.startsWith(`${NFT_CGROUP_BASE}/`) ? dir.slice(NFT_CGROUP_BASE.length + 1) : `${'../'.repeat(NFT_CGROUP_BASE.split('/').length - 1)}${dir.slice(1)}`;
  return { dir, nftPath, v2Path: `/${name}/${list}` };
}

/**
 * The cgroup's name: the product's own, or (for a second instance on one machine, as the
 * namespace tests run) one that starts with it, given to a helper running as root directly.
 */
export function perAppCgroupName(requested: string | undefined): string {
  if (requested === undefined || requested === '') return PER_APP_CGROUP_NAME;
  if (requested.length <= 64 && /^steadfast-vpn(-[a-z0-9]+){1,4}$/.test(requested)) return requested;
  throw new Error(`invalid per-app cgroup name ${JSON.stringify(requested.slice(0, 80))}: it must be ${PER_APP_CGROUP_NAME}-<lowercase letters and digits>`);
}

/** What the rule's path may be: within the hierarchy, ending in a per-app leaf (the helper re-checks what reaches nft). */
export function isPerAppNftPath(path: string): boolean {
  return path.length <= 256 && /^(\.\.\/)*([A-Za-z0-9_.-]+\/)*steadfast-vpn(-[a-z0-9]+){0,4}\/(bypass|only)$/.test(path) && !/(^|\/)\.(\/|$)/.test(path);
}
