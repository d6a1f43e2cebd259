import type { CoreInfo } from '../../shared/domain/connection';

export type CoreFamily = CoreInfo['family'];

export interface ParsedCoreVersion {
  family: CoreFamily;
  /** "4.34.0", "1.8.24", "25.3.6", "1.10.1" (pre-release suffixes such as "-beta.2" kept). */
  version: string;
}

/**
 * Reads the family and version from what a core prints for `-version` / `version`. Real samples:
 * - `V2Ray 4.34.0 (user) 20230518-074445 (go1.19.8 linux/amd64)`
 * - `V2Ray 5.16.1 (V2Fly, a community-driven edition of V2Ray.) Custom (go1.22.4 linux/amd64)`
 * - `Xray 1.8.24 (Xray, Penetrates Everything.) 3b2d10f (go1.22.5 linux/amd64)`
 * - `Xray 25.3.6 (Xray, Penetrates Everything.) 2c0a9e4 (go1.24.1 linux/amd64)`
 * - `sing-box version 1.10.1`
 * Returns null when the text is not a core's version banner.
 */
export function parseCoreVersion(output: string): ParsedCoreVersion | null {
  const number = String.raw`v?(\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?)`;
  const patterns: [CoreFamily, RegExp][] = [
    ['xray', new RegExp(String.raw`^\s*Xray\s+${number}`, 'im')],
    ['v2ray', new RegExp(String.raw`^\s*V2Ray\s+${number}`, 'im')],
    ['sing-box', new RegExp(String.raw`^\s*sing-box\s+version\s+${number}`, 'im')],
  ];
  for (const [family, pattern] of patterns) {
    const match = pattern.exec(output);
    if (match?.[1]) return { family, version: normalise(match[1]) };
  }
  return null;
}

/** "1.8" → "1.8.0" so comparisons and messages are uniform. */
function normalise(version: string): string {
  const [core = '', ...rest] = version.split('-');
  const parts = core.split('.');
  while (parts.length < 3) parts.push('0');
  return [parts.join('.'), ...rest].join('-');
}

/**
 * Numeric comparison of dotted versions (pre-release suffixes sort before the release, as semver
 * does): negative when a < b, 0 when equal, positive when a > b.
 */
export function compareVersions(a: string, b: string): number {
  const [aCore, aPre] = splitPre(a);
  const [bCore, bPre] = splitPre(b);
  const length = Math.max(aCore.length, bCore.length);
  for (let i = 0; i < length; i++) {
    const diff = (aCore[i] ?? 0) - (bCore[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (aPre === bPre) return 0;
  if (aPre === null) return 1;
  if (bPre === null) return -1;
  return comparePre(aPre, bPre);
}

/** "beta.2" < "beta.12": dot-separated identifiers, numbers compared as numbers (as semver does). */
function comparePre(a: string, b: string): number {
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const x = as[i];
    const y = bs[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x) ? Number(x) : null;
    const ny = /^\d+$/.test(y) ? Number(y) : null;
    if (nx !== null && ny !== null) return nx - ny;
    if (nx !== null) return -1;
    if (ny !== null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function splitPre(version: string): [number[], string | null] {
  const dash = version.indexOf('-');
  const core = dash < 0 ? version : version.slice(0, dash);
  const pre = dash < 0 ? null : version.slice(dash + 1);
  return [core.split('.').map((part) => Number.parseInt(part, 10) || 0), pre];
}

/** a ≥ b */
export function atLeast(version: string, minimum: string): boolean {
  return compareVersions(version, minimum) >= 0;
}
