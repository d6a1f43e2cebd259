/**
 * What a rule set holds, core-neutral: names in the core's domain syntax (`domain:`, `full:`,
 * `keyword:`, `regexp:`) and CIDR blocks. Pure. It is what the app converts through when a core
 * cannot read a set's own format: a geosite list becomes sing-box source JSON (then `.srs` by
 * `sing-box rule-set compile`), an `.srs` (decompiled by sing-box) or source JSON becomes Xray's
 * domain and IP rules.
 */

export interface RuleSetContent {
  domains: string[];
  cidrs: string[];
}

/** How a set reaches the routing plan: the entries of its routes (`ext:` references or inline). */
export interface RuleSetRoute {
  id: string;
  /** The set's name, for notices. */
  name: string;
  outbound: 'proxy' | 'direct' | 'block';
  inPlaceOfPreset: boolean;
  domains: string[];
  cidrs: string[];
  /** Changes whenever the copy does (the core must restart to read a new file under the same name). */
  revision: number;
}

export const entryCount = (content: RuleSetContent): number => content.domains.length + content.cidrs.length;

/** The source JSON versions sing-box 1.14 reads (1.8: 1; 1.10: 2; 1.11: 3). */
export const SOURCE_VERSIONS = [1, 2, 3] as const;

/** The fields of a headless rule that are one "destination address" group (ORed by sing-box). */
const ADDRESS_FIELDS = ['domain', 'domain_suffix', 'domain_keyword', 'domain_regex', 'ip_cidr'] as const;

export type SourceRead =
  | { ok: true; content: RuleSetContent; /** Rules that match by more than names and addresses: sing-box runs them, Xray cannot. */ notConvertible: string | null }
  | { ok: false; problem: string };

const listOf = (value: unknown): string[] | null =>
  typeof value === 'string' ? [value] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;

/** Reads sing-box rule-set source JSON (`{"version": 1-3, "rules": [...]}`), as written or decompiled. */
export function readSourceJson(text: string): SourceRead {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const head = text.trimStart();
    return { ok: false, problem: head.startsWith('<') ? 'the file is a web page, not rule-set JSON' : 'the file is not JSON' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, problem: 'the file is not a rule-set object' };
  const { version, rules } = data as { version?: unknown; rules?: unknown };
  if (!SOURCE_VERSIONS.includes(version as 1)) return { ok: false, problem: `the rule set's version is ${JSON.stringify(version)}; sing-box 1.14 reads 1, 2 and 3` };
  if (!Array.isArray(rules)) return { ok: false, problem: 'the rule set has no "rules" list' };
  const domains: string[] = [];
  const cidrs: string[] = [];
  const other = new Set<string>();
  for (const [i, rule] of rules.entries()) {
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return { ok: false, problem: `rule ${i + 1} is not an object` };
    for (const [key, value] of Object.entries(rule as Record<string, unknown>)) {
      if (!(ADDRESS_FIELDS as readonly string[]).includes(key)) {
        other.add(key === 'type' && value === 'logical' ? 'logical rules' : key);
        continue;
      }
      const values = listOf(value);
      if (!values) return { ok: false, problem: `rule ${i + 1}: "${key}" is not a string or a list of strings` };
      if (key === 'ip_cidr') cidrs.push(...values);
      else domains.push(...values.map((v) => xrayDomain(key as Exclude<(typeof ADDRESS_FIELDS)[number], 'ip_cidr'>, v)));
    }
  }
  const notConvertible = other.size > 0 ? `it matches by ${[...other].sort().join(', ')}, which Xray's rules cannot take from a rule set` : null;
  return { ok: true, content: { domains, cidrs }, notConvertible };
}

const escapeRegexp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A sing-box name match as Xray writes it. */
function xrayDomain(field: 'domain' | 'domain_suffix' | 'domain_keyword' | 'domain_regex', value: string): string {
  switch (field) {
    case 'domain':
      return `full:${value}`;
    case 'domain_suffix':
      // ".example.com" matches only below the name; Xray's domain: would match the name itself too.
      return value.startsWith('.') ? `regexp:${escapeRegexp(value)}$` : `domain:${value}`;
    case 'domain_keyword':
      return `keyword:${value}`;
    case 'domain_regex':
      return `regexp:${value}`;
  }
}

/** The content as sing-box source JSON (version 2, read by sing-box ≥ 1.10), ready for `rule-set compile`. */
export function toSourceJson(content: RuleSetContent): { version: 2; rules: Record<string, string[]>[] } {
  const names: Record<string, string[]> = { domain: [], domain_suffix: [], domain_keyword: [], domain_regex: [] };
  for (const entry of content.domains) {
    const [field, value] = singBoxDomain(entry);
    names[field]?.push(value);
  }
  const nameRule = Object.fromEntries(Object.entries(names).filter(([, values]) => values.length > 0));
  const rules: Record<string, string[]>[] = [];
  if (Object.keys(nameRule).length > 0) rules.push(nameRule);
  if (content.cidrs.length > 0) rules.push({ ip_cidr: content.cidrs });
  return { version: 2, rules };
}

/** An entry of the core's domain syntax as a sing-box field and value (a bare entry is a substring, as in Xray). */
function singBoxDomain(entry: string): [string, string] {
  const prefix = /^(domain:|full:|keyword:|regexp:)/.exec(entry)?.[1];
  const value = prefix ? entry.slice(prefix.length) : entry;
  switch (prefix) {
    case 'domain:':
      return ['domain_suffix', value];
    case 'full:':
      return ['domain', value];
    case 'regexp:':
      return ['domain_regex', value];
    default:
      return ['domain_keyword', value];
  }
}

/** Go's RE2 (both cores' engine) has no look-around and no back-references. */
const RE2_UNSUPPORTED = /\(\?[=!<]|\\[1-9]/;

/**
 * A regular expression the cores would refuse when they start (their config tests do not compile
 * them), as a sentence; null when every one is fine.
 */
export function contentProblem(content: RuleSetContent): string | null {
  for (const entry of content.domains) {
    if (!entry.startsWith('regexp:')) continue;
    const value = entry.slice('regexp:'.length);
    let valid = !RE2_UNSUPPORTED.test(value);
    try {
      new RegExp(value, 'u');
    } catch {
      valid = false;
    }
    if (!valid) return `the list has a regular expression the core cannot use: ${JSON.stringify(value.slice(0, 80))}`;
  }
  return null;
}
