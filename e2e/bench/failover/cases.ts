/**
 * Which servers a failover trial starts on and may fail over to. Auto's subscription A holds the
 * lab's plain v2ray-hosted servers and, with the modern kinds asked for, a VLESS + REALITY +
 * Vision server (Xray-hosted) and a Hysteria2 server (sing-box-hosted, salamander, a hopping port
 * range over the relay's UDP path). Auto takes the best score of the servers it may take, so the
 * bench steers it with the user's own marks (spec/auto.md "exclusions"), in two steps:
 * - while Auto is turned on, only `settleUnmarked` may be taken: Auto lands on that one (or, for
 *   several, on its own pick among them);
 * - then, before the fault, the marks become `trialUnmarked(current)`: unmarking never moves Auto
 *   (it stays while the server answers), so the fault meets Auto on the chosen server with exactly
 *   the chosen candidates to fail over to.
 * Pure: the rules are in cases.test.ts.
 */

/** The kinds a run can choose (`--kinds`): the plain servers, and each modern one. */
export const FAILOVER_KINDS = ['plain', 'reality', 'hysteria2'] as const;
export type FailoverKind = (typeof FAILOVER_KINDS)[number];
export type ModernFailoverKind = Exclude<FailoverKind, 'plain'>;

/** The lab's modern kind behind each choice (e2e/lab/modern-world.ts). */
export const LAB_KIND_OF: Record<ModernFailoverKind, string> = {
  reality: 'vless-reality-vision',
  hysteria2: 'hysteria2-salamander-hopping',
};

export interface FailoverCase {
  /** "plain", "from-reality", "to-hysteria2", … (the JSON's key). */
  name: string;
  kind: FailoverKind;
  /** plain: Auto's own pick among the plain servers, failing over among them; from / to: the modern server is the one that fails / the one Auto must move to. */
  direction: 'within' | 'from' | 'to';
}

/** The cases of the chosen kinds, in the order they run: plain first, then each modern kind from and to. */
export function casesFor(kinds: readonly FailoverKind[]): FailoverCase[] {
  const out: FailoverCase[] = [];
  if (kinds.includes('plain')) out.push({ name: 'plain', kind: 'plain', direction: 'within' });
  for (const kind of FAILOVER_KINDS) {
    if (kind === 'plain' || !kinds.includes(kind)) continue;
    out.push({ name: `from-${kind}`, kind, direction: 'from' }, { name: `to-${kind}`, kind, direction: 'to' });
  }
  return out;
}

/** `--kinds a,b`: every name known, at least one; a clear error otherwise. */
export function parseKinds(text: string): FailoverKind[] {
  const names = text.split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = names.filter((k) => !(FAILOVER_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new Error(`unknown kind(s): ${unknown.join(', ')}; choose from ${FAILOVER_KINDS.join(', ')}`);
  if (names.length === 0) throw new Error(`--kinds needs at least one of ${FAILOVER_KINDS.join(', ')}`);
  return [...new Set(names)] as FailoverKind[];
}

/** A server of Auto's subscription as the lineup sees it. */
export interface LineupServer {
  /** Engine server id. */
  id: string;
  /** Which choice it stands for: a plain server, or a modern kind. */
  kind: FailoverKind;
}

export interface Lineup {
  /** The servers Auto may take while it is turned on. */
  settleUnmarked: string[];
  /** The servers Auto may take from the settle on, given where it settled. */
  trialUnmarked(current: string): string[];
  /** What the trial expects to land on: a plain server, or the modern one. */
  expectedTo: FailoverKind;
}

/**
 * The lineup of a case in a subscription's servers (list order kept). Throws when the
 * subscription lacks what the case needs (the modern server, or two plain servers to fail over
 * between), so a run never measures a case it did not set up.
 */
export function lineupFor(c: FailoverCase, servers: readonly LineupServer[]): Lineup {
  const plain = servers.filter((s) => s.kind === 'plain').map((s) => s.id);
  if (c.kind === 'plain') {
    if (plain.length < 2) throw new Error(`the plain case needs two plain servers in Auto's subscription, it has ${plain.length}`);
    return { settleUnmarked: plain, trialUnmarked: () => plain, expectedTo: 'plain' };
  }
  const modern = servers.find((s) => s.kind === c.kind)?.id;
  if (modern === undefined) throw new Error(`${c.name}: Auto's subscription has no ${LAB_KIND_OF[c.kind]} server`);
  if (plain.length < 1) throw new Error(`${c.name}: Auto's subscription has no plain server`);
  if (c.direction === 'from') {
    // On the modern server; the plain ones are where Auto goes.
    return { settleUnmarked: [modern], trialUnmarked: () => [modern, ...plain], expectedTo: 'plain' };
  }
  // On Auto's own pick of the plain servers; the modern one is the only way out.
  return { settleUnmarked: plain, trialUnmarked: (current) => [current, modern], expectedTo: c.kind };
}

/** The marks that leave exactly `unmarked` to Auto. */
export function marksLeaving(servers: readonly LineupServer[], unmarked: readonly string[]): string[] {
  const keep = new Set(unmarked);
  return servers.filter((s) => !keep.has(s.id)).map((s) => s.id);
}

/** A case left out on a core, with why. */
export interface SkippedCase {
  case: string;
  server_kind: string;
  reason: string;
}

/**
 * The cases a core runs, and the ones it skips: a modern case needs its server carried by the
 * main core itself. `notCarried` maps a modern kind to what the engine said of its server on this
 * core (the snapshot's `unsupported` or `carried` text: a second core would carry it, whose
 * figures are not this core's).
 */
export function casesOnCore(cases: readonly FailoverCase[], notCarried: Partial<Record<ModernFailoverKind, string>>, core: string): { run: FailoverCase[]; skipped: SkippedCase[] } {
  const run: FailoverCase[] = [];
  const skipped: SkippedCase[] = [];
  for (const c of cases) {
    const reason = c.kind === 'plain' ? undefined : notCarried[c.kind];
    if (reason === undefined) run.push(c);
    else skipped.push({ case: c.name, server_kind: LAB_KIND_OF[c.kind as ModernFailoverKind], reason: `${core} does not carry it itself: ${reason}` });
  }
  return { run, skipped };
}
