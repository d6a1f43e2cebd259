/** Whether /sys/fs/cgroup is the cgroup v2 hierarchy, which nft's `socket cgroupv2` resolves paths in. */
import { statfsSync } from 'node:fs';

const CGROUP2_SUPER_MAGIC = 0x63677270;

export function cgroupV2Mounted(path = '/sys/fs/cgroup'): boolean {
  try {
    return statfsSync(path).type === CGROUP2_SUPER_MAGIC;
  } catch {
    return false;
  }
}
