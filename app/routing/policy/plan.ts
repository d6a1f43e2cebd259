/**
 * From the user's `routing` and `dns` settings and the shipped region data to the core-neutral
 * plan the tunnel's config is written from. Pure. The order is the promise made to the user:
 * their own rules first (first match wins), then the LAN, then the ad list, then the preset;
 * whatever matches nothing goes through the server.
 */
import type { CoreRoute, CoreRouting } from '../../core/routing-config';
import type { DnsSettings, RegionPreset, RoutingRule, RoutingSettings } from '../../../shared/routing';
import { AD_DOMAINS, REGION_DOMAINS } from '../domain-lists';
import type { RegionCidrs } from '../region-data/format';
import type { RuleSetRoute } from '../rule-sets/content';

/** Private, loopback, link-local, CGNAT and the "this network" ranges, IPv4 and IPv6. */
export const LAN_CIDRS = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
];
export const LAN_DOMAINS = ['full:localhost', 'domain:localhost'];

/** What the region data said, as the plan needs it. */
export interface RegionDataView {
  date: string | null;
  regions: Record<string, RegionCidrs>;
}

export interface RoutingPlan {
  routing: CoreRouting;
  /** The preset actually in force: `global` when the chosen region's data is missing. */
  presetInForce: RegionPreset;
  /** The date of the region data in use, when a region is. */
  dataDate: string | null;
  /** What differs from what the user asked, in words (missing data, the fallback to global). */
  notices: string[];
}

/**
 * `ruleSets` are the chosen rule sets with a copy in force (rule-sets/store.ts), after the ad list
 * and before the preset; one marked `inPlaceOfPreset` stands in for the preset's shipped names
 * (a name set) or its IP ranges (an address set).
 */
export function routingPlan(
  routing: RoutingSettings,
  dns: DnsSettings,
  data: RegionDataView | { problem: string },
  ruleSets: readonly RuleSetRoute[] = [],
): RoutingPlan {
  const notices: string[] = [];
  const routes: CoreRoute[] = routing.rules.flatMap(userRoutes);
  if (routing.bypassLan) routes.push({ outbound: 'direct', ip: LAN_CIDRS }, { outbound: 'direct', domain: LAN_DOMAINS });
  if (routing.blockAds) routes.push({ outbound: 'block', domain: AD_DOMAINS.map((d) => `domain:${d.domain}`) });
  for (const set of ruleSets) {
    if (set.domains.length > 0) routes.push({ outbound: set.outbound, domain: set.domains });
    if (set.cidrs.length > 0) routes.push({ outbound: set.outbound, ip: set.cidrs });
  }

  let presetInForce: RegionPreset = routing.preset;
  let dataDate: string | null = null;
  if (routing.preset !== 'global') {
    const namesBy = ruleSets.filter((s) => s.inPlaceOfPreset && s.domains.length > 0);
    const addressesBy = ruleSets.filter((s) => s.inPlaceOfPreset && s.cidrs.length > 0);
    const region = 'problem' in data ? null : data.regions[routing.preset];
    const cidrs = region ? [...region.ipv4, ...region.ipv6] : [];
    if (cidrs.length === 0 && addressesBy.length === 0) {
      const why = 'problem' in data ? data.problem : `the shipped region data has no IP ranges for "${routing.preset}"`;
      notices.push(`the ${routing.preset} preset is not in force: ${why}; everything goes through the server (global)`);
      presetInForce = 'global';
    } else {
      const lists = REGION_DOMAINS[routing.preset];
      if (namesBy.length === 0) {
        routes.push({ outbound: 'direct', domain: [...lists.tlds.map((tld) => `domain:${tld}`), ...lists.services.map((s) => `domain:${s.domain}`)] });
      } else {
        notices.push(`the ${routing.preset} preset takes its names from ${quotedNames(namesBy)} in place of its shipped list`);
      }
      if (addressesBy.length === 0) {
        routes.push({ outbound: 'direct', ip: cidrs });
        dataDate = 'problem' in data ? null : data.date;
      } else {
        notices.push(`the ${routing.preset} preset takes its IP ranges from ${quotedNames(addressesBy)} in place of the shipped region data`);
      }
    }
  }

  const directDomains = routes.filter((r) => r.outbound === 'direct').flatMap((r) => r.domain ?? []);
  // With no address rule there is nothing to resolve a name for: names go to the server unresolved.
  const domainStrategy = routes.some((r) => r.ip?.length) ? routing.domainStrategy : 'AsIs';
  return {
    routing: {
      domainStrategy,
      routes,
      hosts: routing.hosts,
      dns: { remote: dns.remote, domestic: dns.domestic, directDomains },
    },
    presetInForce,
    dataDate,
    notices,
  };
}

const quotedNames = (sets: readonly RuleSetRoute[]) => sets.map((s) => `rule set "${s.name}"`).join(' and ');

/**
 * A user's rule matches when one of its names or one of its addresses does (the core ANDs the
 * fields of one rule, so names and addresses become two routes), and its port and network do.
 */
function userRoutes(rule: RoutingRule): CoreRoute[] {
  const common = { outbound: rule.outbound, ...(rule.port ? { port: rule.port } : {}), ...(rule.network ? { network: rule.network } : {}) };
  const out: CoreRoute[] = [];
  if (rule.domain.length > 0) out.push({ ...common, domain: rule.domain });
  if (rule.ip.length > 0) out.push({ ...common, ip: rule.ip });
  if (out.length === 0) out.push(common);
  return out;
}
