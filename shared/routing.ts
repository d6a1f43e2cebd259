/**
 * The `routing` and `dns` settings: which traffic goes direct, is blocked or goes through the
 * server, and how names are resolved. Every entry is checked here, so an invalid one is named to
 * the user (see `routingIssueText`) and never reaches the core.
 */
import { z } from 'zod';
import { parseIpv4, parseIpv6 } from './cidr';
import { ruleSetsSchema } from './rule-sets';
import { type Finding, finding, issueOf } from './domain/validation';
import { issueLines } from './zod-issues';

/** `global` sends everything through the server; a region sends its domestic traffic direct. */
export const REGION_PRESETS = ['global', 'ir', 'ru', 'cn'] as const;
export type RegionPreset = (typeof REGION_PRESETS)[number];

export const ROUTE_OUTBOUNDS = ['proxy', 'direct', 'block'] as const;
export type RouteOutbound = (typeof ROUTE_OUTBOUNDS)[number];

/** A rule's outbound may also be a server group, by its name: `group:AI` (settings `groups`). */
export const GROUP_OUTBOUND_PREFIX = 'group:';
export type GroupOutbound = `group:${string}`;
export type RuleOutbound = RouteOutbound | GroupOutbound;

/** The group a rule's outbound names, or null for proxy, direct and block. */
export function groupOfOutbound(outbound: string): string | null {
  return outbound.startsWith(GROUP_OUTBOUND_PREFIX) ? outbound.slice(GROUP_OUTBOUND_PREFIX.length) : null;
}

/**
 * How a name is matched against IP rules: `AsIs` never resolves it (only name rules apply to
 * names); `IPIfNonMatch` resolves a name no name rule matched (through the tunnel) and then tries
 * the IP rules; `IPOnDemand` resolves at the first IP rule.
 */
export const DOMAIN_STRATEGIES = ['AsIs', 'IPIfNonMatch', 'IPOnDemand'] as const;

/** The core's own domain syntax; a bare name matches as a substring (the core's default). */
export const DOMAIN_PREFIXES = ['domain:', 'full:', 'keyword:', 'regexp:'] as const;

export const LIMITS = { rules: 500, entriesPerRule: 5000, entries: 20_000, hosts: 1000, entryLength: 253 } as const;

const atMost = (limit: number, what: string) => ({
  error: (issue: { input?: unknown }) => `holds ${Array.isArray(issue.input) ? issue.input.length : 'too many'} ${what}; at most ${limit}`,
});

/** The finding's English, for callers that want the sentence alone. */
const say = (found: Finding | null) => found && found.text;

const HOST_LABEL = /^(?!-)[\p{L}\p{N}_-]{1,63}(?<!-)$/u;

/** A host name as the user writes it (letters of any script, e.g. `банк.рф`); null when valid. */
export function hostNameFinding(name: string): Finding | null {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare.length === 0 || bare.length > LIMITS.entryLength) return finding('not-host-name', { value: name }, 'is not a host name');
  if (bare.split('.').every((label) => HOST_LABEL.test(label))) return null;
  return finding('not-host-name', { value: name }, 'is not a host name (letters, digits, "-" and "." only)');
}

export const hostNameProblem = (name: string): string | null => say(hostNameFinding(name));

/** Go's RE2 (the core's regexp engine) has no look-around and no back-references. */
const RE2_UNSUPPORTED = /\(\?[=!<]|\\[1-9]/;

export function domainEntryFinding(entry: string): Finding | null {
  const value = { value: entry };
  if (entry.length === 0) return finding('entry-empty', value, 'is empty');
  if (entry.length > LIMITS.entryLength + 10) return finding('entry-too-long', { ...value, limit: LIMITS.entryLength }, `is longer than ${LIMITS.entryLength} characters`);
  if (/^(geosite|ext|geoip):/i.test(entry)) return finding('geosite-list', value, 'names a geosite list; this app ships none: write domain:, full:, keyword: or regexp: entries');
  const prefix = DOMAIN_PREFIXES.find((p) => entry.startsWith(p));
  const rest = prefix ? entry.slice(prefix.length) : entry;
  if (rest.length === 0) return finding('nothing-after-prefix', { ...value, prefix: prefix ?? '' }, `has nothing after "${prefix}"`);
  if (prefix === 'regexp:') {
    if (RE2_UNSUPPORTED.test(rest)) return finding('regexp-unsupported', value, 'uses look-around or a back-reference, which the core cannot match');
    try {
      new RegExp(rest, 'u');
    } catch {
      return finding('regexp-invalid', value, 'is not a valid regular expression');
    }
    return null;
  }
  if (prefix === 'keyword:' || prefix === undefined)
    return /^[\p{L}\p{N}._-]+$/u.test(rest) ? null : finding('keyword-characters', value, 'may hold only letters, digits, ".", "-" and "_"');
  if (/^[a-z][a-z0-9+.-]*:/i.test(rest)) return finding('unknown-prefix', { ...value, prefixes: DOMAIN_PREFIXES.join(', ') }, `has an unknown prefix; use ${DOMAIN_PREFIXES.join(', ')}`);
  const host = hostNameFinding(rest);
  return host && { ...host, params: value };
}

export const domainEntryProblem = (entry: string): string | null => say(domainEntryFinding(entry));

export function isIpAddress(text: string): boolean {
  return (text.includes(':') ? parseIpv6(text) : parseIpv4(text)) !== null;
}

export function cidrFinding(entry: string): Finding | null {
  const notIp = finding('not-ip-or-cidr', { value: entry }, 'is not an IP address or CIDR block');
  const [address, prefix, extra] = entry.split('/');
  if (address === undefined || extra !== undefined) return notIp;
  const v6 = address.includes(':');
  if ((v6 ? parseIpv6(address) : parseIpv4(address)) === null) return notIp;
  if (prefix === undefined) return null;
  const max = v6 ? 128 : 32;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return finding('prefix-length', { value: entry, max }, `has a prefix length outside 0-${max}`);
  return null;
}

export const cidrProblem = (entry: string): string | null => say(cidrFinding(entry));

/** "80", "80,443", "1000-2000", "53,443,1000-2000"; null when valid. */
export function portListFinding(text: string): Finding | null {
  const parts = text.split(',').map((p) => p.trim());
  for (const part of parts) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (!match) return finding('not-port', { value: text, part }, `has "${part}", which is not a port or a range like 1000-2000`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from < 1 || to > 65535) return finding('port-outside-range', { value: text, part }, `has "${part}", outside 1-65535`);
    if (to < from) return finding('port-range-backwards', { value: text, part }, `has "${part}", which runs backwards`);
  }
  return null;
}

export const portListProblem = (text: string): string | null => say(portListFinding(text));

const checked = (problem: (value: string) => Finding | null) =>
  z.string().superRefine((value, ctx) => {
    const why = problem(value);
    if (why) ctx.addIssue(issueOf({ ...why, text: `"${value}" ${why.text}` }));
  });

const isRuleOutbound = (value: unknown): value is RuleOutbound =>
  typeof value === 'string' && ((ROUTE_OUTBOUNDS as readonly string[]).includes(value) || (groupOfOutbound(value) ?? '').length > 0);
const outbound = z.custom<RuleOutbound>(isRuleOutbound, {
  error: (issue) => `unknown outbound ${JSON.stringify(issue.input)}: use ${ROUTE_OUTBOUNDS.join(', ')} or group:NAME`,
  params: { topic: 'unknown-outbound', options: `${ROUTE_OUTBOUNDS.join(', ')}, group:NAME` },
});

export const routingRuleSchema = z
  .object({
    domain: z.array(checked(domainEntryFinding)).max(LIMITS.entriesPerRule, atMost(LIMITS.entriesPerRule, 'names')).default([]),
    ip: z.array(checked(cidrFinding)).max(LIMITS.entriesPerRule, atMost(LIMITS.entriesPerRule, 'addresses')).default([]),
    port: checked(portListFinding).optional(),
    network: z.enum(['tcp', 'udp', 'tcp,udp']).optional(),
    outbound,
  })
  .strict()
  .refine((rule) => rule.domain.length > 0 || rule.ip.length > 0 || rule.port !== undefined || rule.network !== undefined, {
    message: 'matches nothing: give it a domain, ip, port or network',
    params: { topic: 'rule-matches-nothing' },
  });
export type RoutingRule = z.infer<typeof routingRuleSchema>;

/** A hosts entry: a name (in the core's domain syntax) → an IP address or another name to resolve instead. */
const hostsSchema = z.record(z.string(), z.string()).superRefine((hosts, ctx) => {
  const names = Object.keys(hosts);
  if (names.length > LIMITS.hosts) ctx.addIssue({ code: 'custom', message: `holds ${names.length} names; at most ${LIMITS.hosts}` });
  for (const name of names.slice(0, LIMITS.hosts)) {
    const address = hosts[name] ?? '';
    const nameWhy = domainEntryFinding(name);
    if (nameWhy) ctx.addIssue(issueOf({ ...nameWhy, text: `"${name}" ${nameWhy.text}` }, [name]));
    else if (!isIpAddress(address) && hostNameProblem(address) !== null)
      ctx.addIssue(issueOf(finding('not-ip-or-host', { value: address }, `"${address}" is not an IP address or host name`), [name]));
  }
});

export const routingSettingsSchema = z
  .object({
    preset: z.enum(REGION_PRESETS).default('global'),
    /** Private, loopback, link-local and CGNAT ranges and `localhost` go direct. */
    bypassLan: z.boolean().default(true),
    /** The shipped ad and tracker list is blocked. */
    blockAds: z.boolean().default(false),
    domainStrategy: z.enum(DOMAIN_STRATEGIES).default('IPIfNonMatch'),
    /** The user's rules, above everything else; the first that matches wins. */
    rules: z
      .array(routingRuleSchema)
      .max(LIMITS.rules, atMost(LIMITS.rules, 'rules'))
      .refine((rules) => rules.reduce((n, r) => n + r.domain.length + r.ip.length, 0) <= LIMITS.entries, {
        message: `hold more than ${LIMITS.entries} names and addresses in all`,
        params: { topic: 'too-many-entries', limit: LIMITS.entries },
      })
      .default([]),
    /** A static name → address map. */
    hosts: hostsSchema.default({}),
    /** Rule sets fetched from sources and updated by themselves (shared/rule-sets.ts): after the ad list, before the preset. */
    ruleSets: ruleSetsSchema,
  })
  .strict();
export type RoutingSettings = z.infer<typeof routingSettingsSchema>;

/** "1.1.1.1", "1.1.1.1:53", "[2606:4700::1111]:53". */
function resolverAddressFinding(text: string): Finding | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const [host, port] = bracketed ? [bracketed[1] ?? '', bracketed[2]] : text.split(':').length === 2 ? text.split(':') : [text, undefined];
  if (!host || !isIpAddress(host)) return finding('not-resolver', { value: text }, 'is not an IP address (optionally with :port)');
  if (port !== undefined && portListProblem(port) !== null) return finding('resolver-port', { value: text }, 'has an invalid port');
  return null;
}

function remoteResolverFinding(text: string): Finding | null {
  if (text.startsWith('https://')) {
    const rest = text.slice('https://'.length);
    const host = rest.split(/[/:]/)[0] ?? '';
    if (!isIpAddress(host) && hostNameProblem(host) !== null && !/^\[[0-9a-fA-F:.]+\]/.test(rest)) return finding('not-doh-url', { value: text }, 'is not a DNS-over-HTTPS URL');
    return null;
  }
  const problem = resolverAddressFinding(text);
  return problem && finding('not-doh-or-resolver', { value: text }, 'is neither a DNS-over-HTTPS URL (https://…) nor a resolver address');
}

export const dnsSettingsSchema = z
  .object({
    /**
     * Resolves names of proxied traffic when a rule needs an address, always through the tunnel:
     * DNS-over-HTTPS (`https://…/dns-query`) or a plain resolver's address, asked via the server.
     */
    remote: checked(remoteResolverFinding).default('https://1.1.1.1/dns-query'),
    /** Resolves names of direct traffic: `system` (the operating system's resolver) or an address. */
    domestic: z.union([z.literal('system'), checked(resolverAddressFinding)]).default('system'),
  })
  .strict();
export type DnsSettings = z.infer<typeof dnsSettingsSchema>;

export const DEFAULT_ROUTING: RoutingSettings = routingSettingsSchema.parse({});
export const DEFAULT_DNS: DnsSettings = dnsSettingsSchema.parse({});

/** The JSON file `connect --routing FILE` reads: the `routing` section, optionally with `dns`. */
export const routingFileSchema = z
  .object({
    routing: routingSettingsSchema,
    dns: dnsSettingsSchema.optional(),
  })
  .strict();

/** Where an issue is, in the user's words: `rule 3, ip 2`, `hosts "bank.ir"`, `dns remote`. */
export function routingIssuePlace(path: readonly PropertyKey[]): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const next = path[i + 1];
    if (key === 'rules' && typeof next === 'number') {
      parts.push(`rule ${next + 1}`);
      i++;
    } else if ((key === 'domain' || key === 'ip') && typeof next === 'number') {
      parts.push(`${key} ${next + 1}`);
      i++;
    } else if (key === 'ruleSets' && typeof next === 'number') {
      parts.push(`rule set ${next + 1}`);
      i++;
    } else if (key === 'hosts' && next !== undefined) {
      parts.push(`hosts ${JSON.stringify(String(next))}`);
      i++;
    } else {
      parts.push(String(key));
    }
  }
  return parts.join(', ');
}

/** Every issue of a failed parse, one line each: `routing, rule 2, ip 1: "10.0.0.0/33" has a prefix…`. */
export function routingIssueText(error: z.ZodError): string[] {
  return issueLines(error, { place: routingIssuePlace });
}
