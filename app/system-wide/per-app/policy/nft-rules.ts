/**
 * Per-app choice in Linux's TPROXY capture. nftables cannot see a program's path, so a program is
 * known here by its identity in the kernel, as the capture rules can match it:
 * - `uid:N` entries: every socket its owner opened (`meta skuid`);
 * - programs by path or name: the cgroup v2 `steadfast-vpn/bypass` or `steadfast-vpn/only`
 *   (`socket cgroupv2`), which the programs must run in. nft resolves a cgroup path when the rule
 *   is loaded, so the cgroup is made first (`perAppPrepareCommands`); a machine without cgroup v2
 *   mounted at /sys/fs/cgroup (cgroup v1 only) has uids alone, and the entries by path say so.
 * The lines go into the capture's output chain right after the core's own mark is let through:
 * - "bypass": the listed identities' packets `return` (never marked, never captured, DNS too);
 * - "only": every packet that is none of theirs `return`s; theirs go on to be captured.
 */
import { type PerAppSettings, appEntryOf } from '../../../../shared/per-app';

export const PER_APP_CGROUP_ROOT = 'steadfast-vpn' as const;

export interface NftPerApp {
  mode: 'bypass' | 'only';
  uids: number[];
  /** The cgroup v2 path (under /sys/fs/cgroup) the programs by path or name run in; null without any. */
  cgroup: `${typeof PER_APP_CGROUP_ROOT}/${'bypass' | 'only'}` | null;
}

/** What the capture rules match of the active list (null: per-app choice is off or the list is empty). */
export function nftPerAppOf(settings: PerAppSettings, cgroupV2: boolean): { plan: NftPerApp | null; skipped: { entry: string; reason: string }[] } {
  if (settings.mode === 'off') return { plan: null, skipped: [] };
  const uids: number[] = [];
  const skipped: { entry: string; reason: string }[] = [];
  let programs = false;
  for (const text of settings[settings.mode]) {
    const entry = appEntryOf(text);
    if (!entry) continue;
    if (entry.kind === 'uid') {
      if (!uids.includes(entry.uid)) uids.push(entry.uid);
    } else if (cgroupV2) {
      programs = true;
    } else {
      skipped.push({ entry: text, reason: 'this system has no cgroup v2 at /sys/fs/cgroup: the TPROXY capture can match it only by its user (uid:N), or use the TUN capture' });
    }
  }
  const cgroup = programs ? (`${PER_APP_CGROUP_ROOT}/${settings.mode}` as const) : null;
  // "Only" with nothing it can match still means "nothing else through the VPN".
  if (uids.length === 0 && cgroup === null && settings.mode === 'bypass') return { plan: null, skipped };
  return { plan: { mode: settings.mode, uids: [...uids].sort((a, b) => a - b), cgroup }, skipped };
}

export function assertNftPerApp(plan: NftPerApp): void {
  if (plan.mode !== 'bypass' && plan.mode !== 'only') throw new Error(`invalid per-app mode ${String(plan.mode)}`);
  if (!Array.isArray(plan.uids) || plan.uids.length > 500 || plan.uids.some((uid) => !Number.isInteger(uid) || uid < 0 || uid > 0xfffffffe)) throw new Error('invalid per-app uids');
  if (plan.cgroup !== null && plan.cgroup !== `${PER_APP_CGROUP_ROOT}/${plan.mode}`) throw new Error(`invalid per-app cgroup ${String(plan.cgroup)}`);
}

/** The output chain's per-app lines. */
export function nftPerAppLines(plan: NftPerApp | null | undefined): string[] {
  if (!plan) return [];
  assertNftPerApp(plan);
  const uids = plan.uids.length > 0 ? `{ ${plan.uids.join(', ')} }` : null;
  const level = plan.cgroup ? plan.cgroup.split('/').length : 0;
  if (plan.mode === 'bypass') {
    return [...(uids ? [`    meta skuid ${uids} return`] : []), ...(plan.cgroup ? [`    socket cgroupv2 level ${level} "${plan.cgroup}" return`] : [])];
  }
  // Both tests in one rule: a packet returns only when it is neither the users' nor the cgroup's.
  const notOurs = [...(uids ? [`meta skuid != ${uids}`] : []), ...(plan.cgroup ? [`socket cgroupv2 level ${level} != "${plan.cgroup}"`] : [])];
  return notOurs.length > 0 ? [`    ${notOurs.join(' ')} return`] : ['    return'];
}

/** Made before the ruleset is loaded (nft resolves the cgroup path then); left in place, empty, after. */
export function perAppPrepareCommands(plan: NftPerApp | null | undefined): { file: string; args: string[] }[] {
  return plan?.cgroup ? [{ file: 'mkdir', args: ['-p', `/sys/fs/cgroup/${plan.cgroup}`] }] : [];
}
