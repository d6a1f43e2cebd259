/**
 * The routing and DNS sections of the tunnel's config, from a core-neutral plan (the routing
 * service builds it from the user's settings and the region data). What this core cannot do is
 * returned as notices in words; nothing is silently dropped.
 *
 * How names stay private (the DNS module's own queries are routed like any traffic, tagged
 * DNS_TAG): the remote resolver is always reached through the server; the domestic one is asked
 * only about names of direct traffic. A core with `skipFallback` gets both, the domestic one
 * limited to the direct names. A core without it (v2ray 4.34) would fall back to every resolver
 * when one is slow, so the domestic resolver is given to it only when no proxied name can reach
 * the DNS module at all (`AsIs`: names are matched by name rules only, never resolved for routing).
 */
import { domainToASCII } from 'node:url';
import { type GroupOutbound, groupOfOutbound } from '../../shared/routing';
import type { CoreProfile } from './capabilities';
import { coreLabel } from './capabilities';

export type CoreOutboundName = 'proxy' | 'direct' | 'block';

/** One route: the first that matches wins. Within a route every given field must match. */
export interface CoreRoute {
  /** A group's outbound is named as the rule names it (`group:AI`). */
  outbound: CoreOutboundName | GroupOutbound;
  domain?: string[];
  ip?: string[];
  /** "80,443,1000-2000". */
  port?: string;
  network?: 'tcp' | 'udp' | 'tcp,udp';
}

export interface CoreRouting {
  domainStrategy: 'AsIs' | 'IPIfNonMatch' | 'IPOnDemand';
  /** Where the `ext:FILE:LIST` files of the routes are (the rule sets' copies); the core is told by its environment. */
  assetDir?: string;
  routes: CoreRoute[];
  /** Name (core domain syntax) → IP address or another name. */
  hosts: Record<string, string>;
  dns: {
    /** `https://…` (DNS-over-HTTPS) or `IP[:port]`, always through the server. */
    remote: string;
    /** `system` (the OS resolver) or `IP[:port]`, reached directly. */
    domestic: string;
    /** Names the domestic resolver answers for (the direct routes' names). */
    directDomains: string[];
  };
}

export interface RoutingSections {
  rules: Record<string, unknown>[];
  dns: Record<string, unknown>;
  domainStrategy: CoreRouting['domainStrategy'];
  /** Settings of the `direct` (freedom) outbound: resolve through the DNS module, so hosts apply. */
  directSettings: Record<string, unknown>;
  /** What this core does differently from what was asked, in words. */
  notices: string[];
}

/** The DNS module's inbound tag: its queries are routed by it. */
export const DNS_TAG = 'dns-internal';

export interface RoutingTags {
  proxy: string;
  direct: string;
  block: string;
  /** The group outbounds the config has (tagged `group:NAME`); a rule through any other group blocks. */
  groups?: ReadonlySet<string>;
}

export function routingSections(plan: CoreRouting, core: CoreProfile, tags: RoutingTags): RoutingSections {
  const notices: string[] = [];
  const remote = resolverServer(plan.dns.remote);
  const domestic = plan.dns.domestic === 'system' ? null : parseResolverAddress(plan.dns.domestic);
  const skipFallback = core.capabilities.features.has('dns-skip-fallback');
  const resolvesForRouting = plan.domainStrategy !== 'AsIs';
  const directDomains = plan.dns.directDomains.map(coreDomain).filter((d): d is string => d !== null);

  const servers: unknown[] = [remote.server];
  const rules: Record<string, unknown>[] = [];
  if (skipFallback || !resolvesForRouting) {
    const address = domestic ? domestic.address : 'localhost';
    const entry: Record<string, unknown> = { address, ...(domestic ? { port: domestic.port } : {}) };
    if (skipFallback) {
      // Asked first for the direct names, never about any other.
      servers.push({ ...entry, domains: directDomains, skipFallback: true });
    } else {
      // Only direct traffic reaches the DNS module (nothing is resolved for routing): the
      // domestic resolver answers it, the remote one (through the server) when it fails.
      servers.unshift(entry);
    }
    if (domestic) rules.push({ type: 'field', inboundTag: [DNS_TAG], ip: [domestic.address], port: String(domestic.port), outboundTag: tags.direct });
  } else {
    notices.push(
      `${coreLabel(core)} asks every resolver when one is slow (skipFallback needs v2ray 4.37 or Xray), so the domestic resolver could hear about proxied sites: names of direct traffic are resolved by the remote resolver through the server instead`,
    );
  }
  // Everything else the DNS module sends (the remote resolver) goes through the server.
  rules.push({ type: 'field', inboundTag: [DNS_TAG], outboundTag: tags.proxy });

  for (const route of plan.routes) {
    const group = groupOfOutbound(route.outbound);
    if (group !== null && !tags.groups?.has(route.outbound)) {
      // Its traffic was meant for that group's countries: never through the main server instead.
      notices.push(`traffic for the group "${group}" is blocked: this connection carries no such group`);
    }
    const rule = coreRule(route, tags);
    if (rule) rules.push(rule);
  }

  const hosts: Record<string, string> = {};
  for (const [name, address] of Object.entries(plan.hosts)) {
    const key = coreDomain(name);
    if (key) hosts[key] = coreDomain(address) ?? address;
  }
  return {
    rules,
    dns: { tag: DNS_TAG, hosts, servers },
    domainStrategy: plan.domainStrategy,
    directSettings: { domainStrategy: 'UseIP' },
    notices,
  };
}

function coreRule(route: CoreRoute, tags: RoutingTags): Record<string, unknown> | null {
  const outboundTag = groupOfOutbound(route.outbound) === null ? tags[route.outbound as CoreOutboundName] : tags.groups?.has(route.outbound) ? route.outbound : tags.block;
  const rule: Record<string, unknown> = { type: 'field', outboundTag };
  if (route.domain?.length) {
    const domains = route.domain.map(coreDomain).filter((d): d is string => d !== null);
    if (domains.length === 0) return null;
    rule.domain = domains;
  }
  if (route.ip?.length) rule.ip = route.ip;
  if (route.port) rule.port = route.port;
  if (route.network) rule.network = route.network;
  return rule;
}

/**
 * A domain entry as the core matches it: names in other scripts become their xn-- form (what
 * browsers send), `regexp:` and `keyword:` stay as written. Null for a name with no ASCII form.
 */
export function coreDomain(entry: string): string | null {
  const prefix = /^(domain:|full:|keyword:|regexp:)/.exec(entry)?.[1] ?? '';
  const value = entry.slice(prefix.length);
  if (prefix === 'regexp:' || prefix === 'keyword:' || /^[\x20-\x7e]*$/.test(value)) return entry;
  const ascii = domainToASCII(value);
  return ascii ? `${prefix}${ascii}` : null;
}

function resolverServer(remote: string): { server: unknown } {
  if (remote.startsWith('https://')) return { server: remote };
  const parsed = parseResolverAddress(remote);
  return { server: { address: parsed.address, port: parsed.port } };
}

/** "1.1.1.1" → 1.1.1.1:53; "1.1.1.1:5353"; "[2606:4700::1111]:53". */
export function parseResolverAddress(text: string): { address: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { address: bracketed[1] as string, port: Number(bracketed[2] ?? 53) };
  const parts = text.split(':');
  if (parts.length === 2) return { address: parts[0] as string, port: Number(parts[1]) };
  return { address: text, port: 53 };
}
