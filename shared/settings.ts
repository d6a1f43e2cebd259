import { z } from 'zod';
import { DEFAULT_DNS, DEFAULT_ROUTING, dnsSettingsSchema, groupOfOutbound, routingSettingsSchema } from './routing';
import { sharingSettingsSchema } from './sharing';
import { DEFAULT_PER_APP, perAppSettingsSchema } from './per-app';
import { LANGUAGES } from './languages';

/** The seven public IP-info services the monitor falls back to, in the seed's order. */
export const IP_INFO_SERVICES = [
  'ipapi.co',
  'ip-api.com',
  'ipinfo.io',
  'api.ip.sb',
  'ipwho.is',
  'api.country.is',
  'api.my-ip.io',
] as const;
export type IpInfoService = (typeof IP_INFO_SERVICES)[number] | 'cloudflare-trace';

/** Where each IP-info service is asked by default (tests and the demo point these at the lab). */
export const DEFAULT_IP_INFO_URLS: Record<IpInfoService, string> = {
  'ipapi.co': 'https://ipapi.co/json/',
  'ip-api.com': 'http://ip-api.com/json/',
  'ipinfo.io': 'https://ipinfo.io/json',
  'api.ip.sb': 'https://api.ip.sb/geoip',
  'ipwho.is': 'https://ipwho.is/',
  'api.country.is': 'https://api.country.is/',
  'api.my-ip.io': 'https://api.my-ip.io/v2/ip.json',
  'cloudflare-trace': 'https://cloudflare.com/cdn-cgi/trace',
};

const port = z.number().int().min(1).max(65535);
/** Only web URLs: a `file:` or `javascript:` URL is never something to fetch. */
const webUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const durationMs = z.number().int().min(0).max(7 * 24 * 3600 * 1000);

export const monitorSettingsSchema = z.object({
  intervalMs: durationMs.default(5 * 60_000),
  urls: z.array(webUrl()).min(1).default(['https://www.gstatic.com/generate_204']),
  /** Tried first when set; must answer ipapi.co-like JSON. */
  ipInfoUrl: z.union([z.literal(''), webUrl()]).default(''),
  /** Per-service URL overrides (the lab's stand-ins); unset services use DEFAULT_IP_INFO_URLS. */
  ipInfoUrls: z.partialRecord(z.enum([...IP_INFO_SERVICES, 'cloudflare-trace']), webUrl()).default({}),
  verifyIpv6: z.boolean().default(false),
  workers: z.number().int().min(1).max(64).default(10),
  urlTestTimeoutMs: durationMs.min(100).default(5000),
  onDemandTimeoutsMs: z.array(durationMs.min(100)).min(1).max(5).default([1000, 3000, 10_000]),
  idleTimeoutMs: durationMs.default(10 * 60_000),
  debounceWindowMs: durationMs.default(500),
  /** Bytes downloaded by the throughput test. */
  throughputBytes: z.number().int().min(1024).max(1024 ** 3).default(4 * 1024 * 1024),
  /**
   * Bytes the transfer test downloads through each server after its delay test answers, more than
   * the 16–20 KB after which DPI is seen to freeze connections; 0 turns the test off.
   */
  transferTestBytes: z.union([z.literal(0), z.number().int().min(32 * 1024).max(16 * 1024 ** 2)]).default(64 * 1024),
  /** Where the transfer test downloads from: `{bytes}` is replaced by the size; the body should not compress. */
  transferTestUrl: webUrl()
    .refine((url) => url.includes('{bytes}'), 'must contain {bytes}, where the size goes')
    .default('https://speed.cloudflare.com/__down?bytes={bytes}'),
  // What testing may cost (app/monitor/policy/test-budget.ts).
  /** How many of Auto's next candidates after the current server get transfer tests; the rest get delay probes only. */
  transferTestCandidates: z.number().int().min(0).max(50).default(5),
  /** Transfer tests for every server that answers (the old rule), not only the servers in focus. */
  transferTestEveryServer: z.boolean().default(false),
  /** Bytes testing may use in 24 h; 0: no cap. At the cap only delay probes of the current server and Auto's candidates run. */
  testBudgetBytesPerDay: z.number().int().min(0).max(1024 ** 4).default(0),
});
export type MonitorSettings = z.infer<typeof monitorSettingsSchema>;

/** "10" or "10-20": a value or a range, as Xray's freedom fragment and noises take them. */
const xrayRange = z.string().regex(/^\d{1,6}(-\d{1,6})?$/, 'must be a number or a range like 10-20');

/**
 * TLS ClientHello fragment and UDP noise (Xray's `freedom` options), written only for a core that
 * has them. The global switches apply to every server; a server's override either turns them off
 * (`off`), on with the global values (`on`), or gives it values of its own.
 */
export const fragmentSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** "tlshello" (the ClientHello only) or a range of packet numbers. */
    packets: z.string().regex(/^(tlshello|\d{1,6}(-\d{1,6})?)$/, 'must be tlshello, a number or a range like 1-3'),
    /** Bytes per piece. */
    length: xrayRange,
    /** Milliseconds between pieces. */
    interval: xrayRange,
  })
  .strict();
export type FragmentSettings = z.infer<typeof fragmentSettingsSchema>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const noiseSettingsSchema = z
  .object({
    enabled: z.boolean(),
    type: z.enum(['rand', 'str', 'base64']),
    /** For `rand` a length range, for `str` the text, for `base64` the bytes. */
    packet: z.string().min(1, 'must not be empty').max(1000),
    delay: xrayRange,
  })
  .strict()
  // What the packet means depends on the type: the core refuses a `rand` packet that is not a length.
  .superRefine((noise, context) => {
    if (noise.type === 'rand' && !/^\d{1,6}(-\d{1,6})?$/.test(noise.packet)) context.addIssue({ code: 'custom', path: ['packet'], message: 'must be a length or a range like 10-20' });
    if (noise.type === 'base64' && !BASE64.test(noise.packet)) context.addIssue({ code: 'custom', path: ['packet'], message: 'must be base64' });
  });
export type NoiseSettings = z.infer<typeof noiseSettingsSchema>;

/** One server's override: `off`, `on` (the global values), or values of its own. */
export const antiDpiOverrideSchema = z.union([z.enum(['on', 'off']), z.object({ fragment: fragmentSettingsSchema, noise: noiseSettingsSchema }).strict()]);
export type AntiDpiOverride = z.infer<typeof antiDpiOverrideSchema>;
/** Per-server overrides by server id. */
const overridesSchema = z.record(z.string().max(200), antiDpiOverrideSchema);
export const antiDpiBlockSchema = z.object({ fragment: fragmentSettingsSchema, noise: noiseSettingsSchema, servers: overridesSchema }).strict();

export const antiDpiSettingsSchema = z.object({
  fragment: fragmentSettingsSchema.default({ enabled: false, packets: 'tlshello', length: '100-200', interval: '10-20' }),
  noise: noiseSettingsSchema.default({ enabled: false, type: 'rand', packet: '10-20', delay: '10-16' }),
  servers: overridesSchema.default({}),
});
export type AntiDpiSettings = z.infer<typeof antiDpiSettingsSchema>;

/**
 * Chains chosen in a server's details ("reach this server through that one"), by server id; they
 * take the place of a chain its share link encodes. Ids are stable across updates, so a choice
 * survives them. A server cannot be its own front; the rest (a front gone, a front chained itself)
 * depends on the servers of the day and is said where the server is shown (app/core/chains.ts).
 */
export const chainsSchema = z
  .record(z.string().min(1).max(200), z.string().min(1).max(200))
  .superRefine((chains, context) => {
    for (const [serverId, frontId] of Object.entries(chains)) {
      if (serverId === frontId) context.addIssue({ code: 'custom', path: [serverId], message: 'a server cannot be reached through itself', params: { topic: 'chain-through-itself' } });
    }
  });
export type Chains = z.infer<typeof chainsSchema>;

/**
 * Server groups: routing rules may send traffic through a group (`group:NAME`), which runs beside
 * the main connection on a member it picks. Members are named by the exit country the monitor
 * learnt, by subscription, or by hand (server ids), and resolved against the servers of the day
 * (app/routing/groups/members.ts).
 */
export const GROUP_LIMITS = { groups: 16, nameLength: 40, entries: 1000 } as const;
const groupMembersSchema = z.discriminatedUnion('by', [
  z.object({ by: z.literal('country'), countries: z.array(z.string().regex(/^[A-Z]{2}$/, 'is not a two-letter country code (ISO 3166, capitals)')).min(1).max(300) }).strict(),
  z.object({ by: z.literal('subscription'), subscriptionIds: z.array(z.string().min(1).max(200)).min(1).max(GROUP_LIMITS.entries) }).strict(),
  z.object({ by: z.literal('servers'), serverIds: z.array(z.string().min(1).max(200)).min(1).max(GROUP_LIMITS.entries) }).strict(),
]);
export const serverGroupSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(GROUP_LIMITS.nameLength)
      .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u, 'may hold letters, digits, spaces, dots, dashes and underscores, starting with a letter or digit'),
    members: groupMembersSchema,
  })
  .strict();
export type ServerGroup = z.infer<typeof serverGroupSchema>;
export type GroupMembers = ServerGroup['members'];
export const groupsSchema = z
  .array(serverGroupSchema)
  .max(GROUP_LIMITS.groups)
  .superRefine((groups, context) => {
    const seen = new Set<string>();
    groups.forEach((group, index) => {
      if (seen.has(group.name)) context.addIssue({ code: 'custom', path: [index, 'name'], message: `"${group.name}" names two groups`, params: { topic: 'group-name-twice', value: group.name } });
      seen.add(group.name);
    });
  });

/** Routing rules that send traffic through a group no group of `groups` is named as: "rule 3 names no group \"AI\"". */
export function unknownGroupReferences(settings: { routing: { rules: readonly { outbound: string }[] }; groups: readonly ServerGroup[] }): { index: number; outbound: string; text: string }[] {
  const names = new Set(settings.groups.map((g) => g.name));
  return settings.routing.rules.flatMap((rule, index) => {
    const group = groupOfOutbound(rule.outbound);
    return group !== null && !names.has(group) ? [{ index, outbound: rule.outbound, text: `rule ${index + 1}: outbound "${rule.outbound}" names no group (define it under groups first)` }] : [];
  });
}

export { LANGUAGES, type Language } from './languages';

/**
 * What Connect changes on the machine:
 * - `proxy`: nothing; the local HTTP and SOCKS5 proxies serve the programs pointed at them;
 * - `system-proxy`: the operating system's proxy setting points at them while connected;
 * - `system-wide`: every program's traffic is captured (firewall rules and policy routing on
 *   Linux, a TUN device elsewhere) and enters the core; this needs administrator rights.
 */
export const CONNECTION_MODES = ['proxy', 'system-proxy', 'system-wide'] as const;
export type ConnectionMode = (typeof CONNECTION_MODES)[number];

/**
 * How system-wide mode captures traffic on Linux (Windows and macOS always use sing-box's TUN):
 * - `tproxy`: nftables TPROXY rules and policy routing hand every connection to the core;
 * - `tun`: sing-box's TUN device takes it and hands it to the core's SOCKS5 inbound, as on
 *   Windows and macOS.
 */
export const SYSTEM_WIDE_CAPTURES = ['tproxy', 'tun'] as const;
export type SystemWideCaptureMethod = (typeof SYSTEM_WIDE_CAPTURES)[number];

export const settingsSchema = z.object({
  /** A core binary chosen by the user; null = bundled resources, then PATH. */
  corePath: z.string().min(1).nullable().default(null),
  httpPort: port.default(10809),
  socksPort: port.default(10808),
  /**
   * Kept so older settings files still read; it opens nothing any more. It once put the proxies,
   * without a password, on every interface: household sharing (`sharing`) replaced it.
   */
  allowLan: z.boolean().default(false),
  /** Auto starts a check after this long sending without receiving (desktop: 5 s). */
  stallThresholdMs: durationMs.min(1000).default(5000),
  monitor: monitorSettingsSchema.default(monitorSettingsSchema.parse({})),
  language: z.enum([...LANGUAGES, 'system']).default('system'),
  theme: z.enum(['light', 'dark', 'system']).default('system'),
  logLevel: z.enum(['debug', 'info', 'warning', 'error']).default('info'),
  /** A server the user trusts as a vantage point: its single vote decides reachability. */
  trustedCheckerId: z.string().nullable().default(null),

  /** What Connect changes on the machine (see CONNECTION_MODES). */
  mode: z.enum(CONNECTION_MODES).default('proxy'),
  /** Linux: how system-wide mode captures (see SYSTEM_WIDE_CAPTURES). */
  systemWideCapture: z.enum(SYSTEM_WIDE_CAPTURES).default('tproxy'),

  // The kill switch (app/system-wide/kill-switch/): while on, nothing leaves the machine but to
  // the servers and over the tunnel, in every state of the app and while it is not running.
  killSwitch: z.boolean().default(false),
  /** With the kill switch on, the LAN stays reachable outside the tunnel. */
  killSwitchAllowLan: z.boolean().default(false),

  /** Start the desktop app when the user logs in, minimised to the tray (off unless asked). */
  startAtLogin: z.boolean().default(false),
  /** Connect when the app starts (to Auto's pick when Auto is on, else the last server). */
  connectOnStart: z.boolean().default(false),

  // Routing and DNS (shared/routing.ts): what goes direct, is blocked or goes through the server,
  // and how names are resolved without leaking them.
  routing: routingSettingsSchema.default(DEFAULT_ROUTING),
  dns: dnsSettingsSchema.default(DEFAULT_DNS),

  /** Xray's anti-DPI options, for every server unless it overrides them (see antiDpiSettingsSchema). */
  antiDpi: antiDpiSettingsSchema.default(antiDpiSettingsSchema.parse({})),

  /** Chains the user chose: server id → the id of the server it is reached through (its front). */
  chains: chainsSchema.default({}),
  /** Server groups a routing rule may send traffic through (see serverGroupSchema). */
  groups: groupsSchema.default([]),
  /** Household sharing (shared/sharing.ts): the proxies on a private LAN address, behind a password; off unless asked. */
  sharing: sharingSettingsSchema.default({ enabled: false, address: '' }),

  /** System-wide mode: which apps bypass the VPN, or the only ones that use it (shared/per-app.ts). */
  perApp: perAppSettingsSchema.default(DEFAULT_PER_APP),
});
export type Settings = z.infer<typeof settingsSchema>;

/** The window has the same as a plain value (settings-defaults.ts, held equal by its test), to show before its first snapshot without these schemas. */
export const DEFAULT_SETTINGS: Settings = settingsSchema.parse({});

/**
 * A stored settings document brought up to today's shape before it is validated. Files written
 * before `mode` existed carry `systemProxy: boolean`: on means `system-proxy`, off means `proxy`
 * (an existing user's Connect keeps doing what it did). A document with neither gets the host's
 * default mode (the desktop app's differs from the CLI's).
 */
export function migrateStoredSettings(raw: unknown, defaultMode: ConnectionMode): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const migrated = modeFromSystemProxy(raw as Record<string, unknown>);
  return 'mode' in migrated ? migrated : { ...migrated, mode: defaultMode };
}

/** The step of the settings file's format that replaced `systemProxy: boolean` with `mode`. */
export function modeFromSystemProxy(raw: Record<string, unknown>): Record<string, unknown> {
  const { systemProxy, ...rest } = raw;
  if ('mode' in rest) return rest;
  if (systemProxy === true) return { ...rest, mode: 'system-proxy' };
  if (systemProxy === false) return { ...rest, mode: 'proxy' };
  return rest;
}

/** The schema a settings file is read with: migrated first, then validated and defaulted. */
export function storedSettingsSchema(defaultMode: ConnectionMode) {
  return z.preprocess((raw) => migrateStoredSettings(raw, defaultMode), settingsSchema);
}

/**
 * The same fields with every default removed: a patch names only what changes. (zod's
 * `.partial()` keeps defaults, which would reset every field the patch does not mention.)
 */
function optionalWithoutDefaults<T extends z.ZodRawShape>(shape: T) {
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, ((field instanceof z.ZodDefault ? field.unwrap() : field) as z.ZodType).optional()]),
  ) as unknown as { [K in keyof T]: z.ZodOptional<T[K] extends z.ZodDefault<infer Inner> ? Inner : T[K]> };
}

/** A partial settings change as the UI sends it. */
export const settingsPatchSchema = z
  .object({
    ...optionalWithoutDefaults(settingsSchema.omit({ monitor: true, antiDpi: true, sharing: true, perApp: true }).shape),
    monitor: z.object(optionalWithoutDefaults(monitorSettingsSchema.shape)).strict().optional(),
    /** The anti-DPI block is sent whole. */
    antiDpi: antiDpiBlockSchema.optional(),
    /** The sharing block is sent whole (its address is checked against its switch). */
    sharing: sharingSettingsSchema.optional(),
    /** The per-app block is sent whole (both lists are kept, one is active). */
    perApp: perAppSettingsSchema.optional(),
  })
  .strict();
export type SettingsPatch = z.input<typeof settingsPatchSchema>;
