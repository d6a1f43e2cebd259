/**
 * Per-app choice on sing-box's TUN (Windows, macOS, and Linux's TUN capture), written with
 * sing-box's own process rules rather than by matching packets ourselves:
 * - "bypass": each listed app's connections go `direct`, before anything else is looked at (its
 *   DNS too: it uses the user's own network as if the VPN were off);
 * - "only": each listed app's connections go to the core; everything else goes `direct`
 *   (`route.final`), DNS included, so the other apps work as without the VPN.
 * Per platform (sing-box route rule fields `process_name`, `process_path`, `process_path_regex`,
 * `user_id`; the process fields need sing-box to find the owner of a connection, which it does on
 * all three):
 * - Linux: a path is `process_path`, a name `process_name`, `uid:N` is `user_id`;
 * - macOS: a `.app` bundle matches every executable inside it (`process_path_regex` on its
 *   folder: helpers such as "Discord Helper (Renderer)" run from inside the bundle); other paths
 *   are `process_path`, names `process_name`; a uid has no meaning here and is left out, said so;
 * - Windows: paths and names are matched without regard to case, as Windows treats them
 *   (`process_path_regex` with `(?i)`); a uid is left out, said so.
 * sing-box ANDs different fields of one rule, so each kind of match is a rule of its own.
 */
import { type AppEntry, appEntryOf, type PerAppSettings } from '../../../../shared/per-app';

export type PerAppPlatform = 'linux' | 'darwin' | 'win32';

export interface SingBoxPerApp {
  /** Rules to put before the TUN's own sniff and DNS rules (after the core's own bypass). */
  rules: Record<string, unknown>[];
  /** The route's final outbound: `direct` for "only", else unchanged (null). */
  final: 'direct' | null;
  /** "Only" leaves the other apps' DNS to the network: the TUN's DNS hijack is dropped. */
  hijackDns: boolean;
  /** Entries this platform cannot match, with why (shown beside them). */
  skipped: { entry: string; reason: string }[];
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function isBundle(path: string): boolean {
  return /\.app\/?$/i.test(path);
}

/** The rule fields that match one entry on a platform, or the reason it cannot be matched there. */
function matchOf(entry: AppEntry, platform: PerAppPlatform): { field: string; value: string | number } | { reason: string } {
  switch (entry.kind) {
    case 'uid':
      return platform === 'linux' ? { field: 'user_id', value: entry.uid } : { reason: 'a Linux user id has no meaning on this system' };
    case 'name':
      return platform === 'win32' ? { field: 'process_path_regex', value: `(?i)(^|[\\\\/])${escapeRegex(entry.name)}$` } : { field: 'process_name', value: entry.name };
    case 'path':
      if (platform === 'win32') return { field: 'process_path_regex', value: `(?i)^${escapeRegex(entry.path.replace(/\//g, '\\'))}$` };
      if (platform === 'darwin' && isBundle(entry.path)) return { field: 'process_path_regex', value: `^${escapeRegex(entry.path.replace(/\/$/, ''))}/` };
      return { field: 'process_path', value: entry.path };
  }
}

export function singBoxPerApp(settings: PerAppSettings, platform: PerAppPlatform): SingBoxPerApp {
  const none: SingBoxPerApp = { rules: [], final: null, hijackDns: true, skipped: [] };
  if (settings.mode === 'off') return none;
  const outbound = settings.mode === 'bypass' ? 'direct' : 'core';
  const byField = new Map<string, (string | number)[]>();
  const skipped: SingBoxPerApp['skipped'] = [];
  for (const text of settings[settings.mode]) {
    const entry = appEntryOf(text);
    if (!entry) continue;
    const match = matchOf(entry, platform);
    if ('reason' in match) {
      skipped.push({ entry: text, reason: match.reason });
      continue;
    }
    const values = byField.get(match.field) ?? [];
    if (!values.includes(match.value)) values.push(match.value);
    byField.set(match.field, values);
  }
  const rules = [...byField.entries()].map(([field, values]) => ({ [field]: values, outbound }));
  if (settings.mode === 'bypass') return { ...none, rules, skipped };
  // "Only" with nothing it can match sends nothing through the VPN: that is what the list says.
  return { rules, final: 'direct', hijackDns: false, skipped };
}

interface SingBoxRoute {
  final?: string;
  rules?: Record<string, unknown>[];
}

/**
 * The TUN config with the per-app rules in: after the rules every connection must meet first (the
 * core's own connections and the direct inbound go `direct`), before sniffing and DNS.
 */
export function withPerApp(config: Record<string, unknown>, perApp: SingBoxPerApp): Record<string, unknown> {
  if (perApp.rules.length === 0 && perApp.final === null) return config;
  const route = config.route as SingBoxRoute;
  const rules = route.rules ?? [];
  const firstOther = rules.findIndex((rule) => !('process_path' in rule && rule.outbound === 'direct') && !('inbound' in rule));
  const at = firstOther < 0 ? rules.length : firstOther;
  const rest = rules.slice(at).filter((rule) => perApp.hijackDns || rule.action !== 'hijack-dns');
  return { ...config, route: { ...route, ...(perApp.final ? { final: perApp.final } : {}), rules: [...rules.slice(0, at), ...perApp.rules, ...rest] } };
}
