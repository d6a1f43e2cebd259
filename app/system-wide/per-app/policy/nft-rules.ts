/**
 * Per-app choice in Linux's TPROXY capture. nftables cannot see a program's path, so a program is
 * known here by its identity in the kernel, as the capture rules can match it:
 * - `uid:N` entries: every socket its owner opened (`meta skuid`);
 * - programs by path or name: the list's own cgroup v2 leaf (`socket cgroupv2`), into which the
 *   privileged helper moves the processes they name and keeps moving new ones
 *   (per-app/cgroup-follower.ts); where that leaf lives is the machine's (policy/cgroup-placement.ts).
 * The app asks for a `PerAppRequest`; the helper, which knows the machine, turns it into the
 * `NftPerApp` the rules are built from. The lines go into the capture's output chains right after
 * the core's own mark is let through:
 * - "bypass": the listed identities' packets `return` (never marked, never captured, DNS too);
 * - "only": a chain of its own returns the listed ones to be captured and accepts — lets go
 *   uncaptured — everything else. One chain rather than one negated rule, because a `socket
 *   cgroupv2 level 2` test matches neither `==` nor `!=` for a socket whose cgroup is shallower than
 *   level 2 (the root cgroup, where most processes of a machine without systemd live): negated in
 *   one rule, those would all have been captured.
 */
import { type PerAppSettings, appEntryOf } from '../../../../shared/per-app';
import { isPerAppNftPath, PER_APP_CGROUP_LEVEL } from './cgroup-placement';

/** What the app asks of the helper: the active list's uids, and its programs by path or name. */
export interface PerAppRequest {
  mode: 'bypass' | 'only';
  uids: number[];
  programs: string[];
}

/** What the capture rules match: uids, and the path nftables is given for the list's cgroup leaf (null without one). */
export interface NftPerApp {
  mode: 'bypass' | 'only';
  uids: number[];
  cgroup: string | null;
}

export const PER_APP_ONLY_CHAIN = 'per_app_only';

/** The active list as the helper is asked for it (null: per-app choice is off or the bypass list is empty). */
export function perAppRequestOf(settings: PerAppSettings): PerAppRequest | null {
  if (settings.mode === 'off') return null;
  const uids: number[] = [];
  const programs: string[] = [];
  for (const text of settings[settings.mode]) {
    const entry = appEntryOf(text);
    if (!entry) continue;
    if (entry.kind === 'uid') {
      if (!uids.includes(entry.uid)) uids.push(entry.uid);
    } else if (!programs.includes(text.trim())) {
      programs.push(text.trim());
    }
  }
  // "Only" with nothing in it still means "nothing through the VPN".
  if (settings.mode === 'bypass' && uids.length === 0 && programs.length === 0) return null;
  return { mode: settings.mode, uids: uids.sort((a, b) => a - b), programs };
}

export function assertNftPerApp(plan: NftPerApp): void {
  if (plan.mode !== 'bypass' && plan.mode !== 'only') throw new Error(`invalid per-app mode ${String(plan.mode)}`);
  if (!Array.isArray(plan.uids) || plan.uids.length > 500 || plan.uids.some((uid) => !Number.isInteger(uid) || uid < 0 || uid > 0xfffffffe)) throw new Error('invalid per-app uids');
  if (plan.cgroup !== null && !(isPerAppNftPath(plan.cgroup) && plan.cgroup.endsWith(`/${plan.mode}`))) throw new Error(`invalid per-app cgroup ${String(plan.cgroup)}`);
}

const uidSet = (uids: number[]) => `{ ${uids.join(', ')} }`;
const cgroupTest = (path: string) => `socket cgroupv2 level ${PER_APP_CGROUP_LEVEL} "${path}"`;

/** The per-app lines of an output chain (the capture's, and the IPv6 gate's). */
export function nftPerAppLines(plan: NftPerApp | null | undefined): string[] {
  if (!plan) return [];
  assertNftPerApp(plan);
  if (plan.mode === 'only') return [`    jump ${PER_APP_ONLY_CHAIN}`];
  return [...(plan.uids.length > 0 ? [`    meta skuid ${uidSet(plan.uids)} return`] : []), ...(plan.cgroup ? [`    ${cgroupTest(plan.cgroup)} return`] : [])];
}

/** The chains per-app choice adds to the capture's table ("only": the listed go back to be captured, the rest leave). */
export function nftPerAppChains(plan: NftPerApp | null | undefined): string[] {
  if (!plan || plan.mode !== 'only') return [];
  assertNftPerApp(plan);
  return [
    `  chain ${PER_APP_ONLY_CHAIN} {`,
    ...(plan.uids.length > 0 ? [`    meta skuid ${uidSet(plan.uids)} return`] : []),
    ...(plan.cgroup ? [`    ${cgroupTest(plan.cgroup)} return`] : []),
    '    accept',
    '  }',
  ];
}
