/**
 * Which outbound a generated core config sends a destination to, read the way the core reads its
 * rules (first match wins; fields of one rule AND; `domain:` = the name or a subdomain, `full:` =
 * exactly, `keyword:` / bare = substring, `regexp:`; `ip` = CIDR blocks). Only for tests: it lets
 * a test ask the generated config a question instead of comparing it with a copy of itself.
 */
import { cidrContains } from '../../../shared/cidr';

interface Destination {
  domain?: string;
  ip?: string;
  port?: number;
  inboundTag?: string;
}

function domainMatches(entry: string, name: string): boolean {
  if (entry.startsWith('domain:')) {
    const d = entry.slice(7);
    return name === d || name.endsWith(`.${d}`);
  }
  if (entry.startsWith('full:')) return name === entry.slice(5);
  if (entry.startsWith('regexp:')) return new RegExp(entry.slice(7)).test(name);
  if (entry.startsWith('keyword:')) return name.includes(entry.slice(8));
  return name.includes(entry);
}

function portMatches(spec: string, port: number): boolean {
  return spec.split(',').some((part) => {
    const [from, to] = part.split('-').map(Number) as [number, number | undefined];
    return port >= from && port <= (to ?? from);
  });
}

/** The outbound tag of the first rule matching `to`, or the first outbound's (the default). */
export function firstMatch(config: Record<string, unknown>, to: Destination): string {
  const routing = config.routing as { rules: Record<string, unknown>[] };
  for (const rule of routing.rules) {
    if (rule.inboundTag && !(rule.inboundTag as string[]).includes(to.inboundTag ?? '')) continue;
    if (rule.domain && !(to.domain && (rule.domain as string[]).some((d) => domainMatches(d, to.domain as string)))) continue;
    if (rule.ip && !(to.ip && (rule.ip as string[]).some((c) => cidrContains(c, to.ip as string)))) continue;
    if (rule.port && !(to.port !== undefined && portMatches(rule.port as string, to.port))) continue;
    return rule.outboundTag as string;
  }
  return ((config.outbounds as { tag: string }[])[0] as { tag: string }).tag;
}
