/**
 * The scenario file of `npm run sim` (spec/scenario.md), parsed and checked once. Anything wrong
 * comes back as one line naming the field at fault, e.g. `world[2].servers.fi: expected a delay
 * in ms or "down"`.
 *
 * Additions to the contract (extra fields are allowed): a server may be `"refused"` (probes fail
 * at once and the core reports a dial failure for every attempt, as a closed port does); actions
 * `{"connect": id}` (the user picks a server by hand), `{"checkNow": true}` and
 * `{"destinationFailure": true}` (the core reports a failed dial of a destination through the
 * current server, which carried it: the app's own fetch of an unreachable provider); `reconnect`, how
 * long a switch interrupts the traffic (default 1 s); traffic `"sparse"` (a background app sending
 * in one 500 ms interval every 3 s: never a 5 s stall, but 30 s without an answer);
 * `platform: "mobile"` uses the 2 s stall of
 * the spec's mobile rule; `transfers` in a world entry (`{"A1": "freezes"}`) says what a transfer
 * test through a server finds from then on (`ok` unless said: a freezing server still answers
 * pings, and the user's traffic through it gets a trickle). Servers the world never mentions are down.
 */
import { z } from 'zod';
import { monitorSettingsSchema, settingsSchema } from '../../../shared/settings';
import { firstIssueLine } from '../../../shared/zod-issues';

/** "250ms", "5s", "2m", "1h", or parts of them in a row: "2m30s", "1h5m", "4.5s". */
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const MAX_UNTIL_MS = 7 * 24 * 3_600_000;
const DURATION_ERROR = 'expected a duration such as "250ms", "5s", "2m", "1h" or "2m30s"';

export function durationMs(text: string): number {
  if (!DURATION.test(text)) throw new Error(`not a duration: ${text}`);
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return Math.round(total);
}

const duration = z
  .union([z.number().nonnegative(), z.string().regex(DURATION, { error: DURATION_ERROR })], { error: DURATION_ERROR })
  .transform((v) => (typeof v === 'number' ? v : durationMs(v)))
  // "9999…9h" is spelled like a duration but is Infinity ms: a run that would never end.
  .refine(Number.isFinite, { error: 'expected a finite duration' });

const id = z.string({ error: 'expected an id (a string)' }).min(1, { error: 'expected a non-empty id' });

export type SimServerState = number | 'down' | 'refused';
const serverState = z.union([z.number().int().nonnegative(), z.literal('down'), z.literal('refused')], {
  error: 'expected a delay in ms or "down"',
});

const action = z.union(
  [
    z.object({ exclude: z.array(id).min(1) }),
    z.object({ include: z.array(id).min(1) }),
    z.object({ autoOn: id }),
    z.object({ autoOff: z.literal(true) }),
    z.object({ subscriptionUpdate: z.record(id, z.array(id)) }),
    z.object({ connect: id }),
    z.object({ checkNow: z.literal(true) }),
    // The core fails to reach a destination through the current server, which carried the
    // request: the app's own fetch of a provider that failed directly too (issue 28).
    z.object({ destinationFailure: z.literal(true) }),
    // The settings Auto reads, with the bounds Settings puts on them.
    z.object({
      settings: z
        .object({ stallThresholdMs: settingsSchema.shape.stallThresholdMs.unwrap(), urlTestTimeoutMs: monitorSettingsSchema.shape.urlTestTimeoutMs.unwrap() })
        .partial()
        .strict(),
    }),
  ],
  {
    error:
      'expected one of {"exclude": [ids]}, {"include": [ids]}, {"autoOn": id}, {"autoOff": true}, {"subscriptionUpdate": {...}}, {"connect": id}, {"checkNow": true}, {"destinationFailure": true}, {"settings": {"stallThresholdMs": ms, "urlTestTimeoutMs": ms}}',
  },
);
export type SimAction = z.infer<typeof action>;

const worldEntry = z.object({
  at: duration,
  network: z.enum(['online', 'offline', 'none'], { error: 'expected "online", "offline" or "none"' }).optional(),
  traffic: z.enum(['active', 'idle', 'sparse'], { error: 'expected "active", "idle" or "sparse"' }).optional(),
  servers: z.record(id, serverState).optional(),
  /** What a transfer test through the server finds from then on (a server not named passes: `ok`). */
  transfers: z.record(id, z.enum(['ok', 'freezes', 'throttled'], { error: 'expected "ok", "freezes" or "throttled"' })).optional(),
  action: action.optional(),
});
export type WorldEntry = z.infer<typeof worldEntry>;

const scenarioSchema = z.object({
  platform: z.enum(['desktop', 'mobile'], { error: 'expected "desktop" or "mobile"' }).default('desktop'),
  subscriptions: z.array(z.object({ id, servers: z.array(id) }), { error: 'expected a list of {"id", "servers"}' }).min(1, {
    error: 'expected at least one subscription',
  }),
  auto: id.nullable().optional(),
  current: id.optional(),
  excluded: z.array(id).optional(),
  history: z.record(id, z.array(z.number().nonnegative().nullable(), { error: 'expected a list of delays in ms or null' })).optional(),
  world: z.array(worldEntry, { error: 'expected a list of changes' }).default([]),
  /** At most 7 days (about 10 s of simulation): a typo such as "100000h" must not run for hours. */
  until: duration.refine((ms) => ms <= MAX_UNTIL_MS, { error: 'at most 7 days ("168h")' }),
  reconnect: duration.default(1000),
  /**
   * Server groups beside the main connection (issue 25): each picks among its members by Auto's
   * rules, its traffic following the main traffic's pattern; its lines carry `group`.
   */
  groups: z.array(z.object({ name: z.string().min(1), members: z.array(id).min(1) }), { error: 'expected a list of {"name", "members"}' }).optional(),
});
export type Scenario = z.infer<typeof scenarioSchema>;

export type ParseResult = { ok: true; scenario: Scenario } | { ok: false; error: string };

export function parseScenario(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `scenario: not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  return validateScenario(raw);
}

export function validateScenario(raw: unknown): ParseResult {
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: firstIssueLine(parsed.error, { whole: 'scenario', place: fieldName }) };
  const problem = crossCheck(parsed.data);
  return problem ? { ok: false, error: problem } : { ok: true, scenario: { ...parsed.data, world: sortedWorld(parsed.data.world) } };
}

function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part)), '');
}

/** World changes in time order; changes at the same time keep the file's order. */
function sortedWorld(world: WorldEntry[]): WorldEntry[] {
  return world.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.at - b.entry.at || a.index - b.index).map(({ entry }) => entry);
}

/** What zod cannot see: ids that must name a subscription or a server of the scenario. */
function crossCheck(s: Scenario): string | null {
  const subscriptionIds = new Set<string>();
  const owner = new Map<string, string>();
  for (const [i, sub] of s.subscriptions.entries()) {
    if (subscriptionIds.has(sub.id)) return `subscriptions[${i}].id: "${sub.id}" appears twice`;
    subscriptionIds.add(sub.id);
    for (const [j, server] of sub.servers.entries()) {
      const other = owner.get(server);
      if (other !== undefined) return `subscriptions[${i}].servers[${j}]: "${server}" is already in subscription ${other}`;
      owner.set(server, sub.id);
    }
  }
  const known = new Set(owner.keys());
  for (const entry of s.world) for (const ids of Object.values(entry.action && 'subscriptionUpdate' in entry.action ? entry.action.subscriptionUpdate : {})) ids.forEach((x) => known.add(x));

  if (s.auto != null && !subscriptionIds.has(s.auto)) return `auto: there is no subscription "${s.auto}"`;
  if (s.current === undefined && s.auto == null) return 'current: required when "auto" is not set';
  if (s.current !== undefined && !owner.has(s.current)) return `current: there is no server "${s.current}" in the subscriptions`;
  for (const [i, x] of (s.excluded ?? []).entries()) if (!owner.has(x)) return `excluded[${i}]: there is no server "${x}"`;
  for (const x of Object.keys(s.history ?? {})) if (!owner.has(x)) return `history.${x}: there is no server "${x}"`;
  if (s.until <= 0) return 'until: must be after the start';
  for (const [i, g] of (s.groups ?? []).entries()) {
    for (const [j, x] of g.members.entries()) if (!owner.has(x)) return `groups[${i}].members[${j}]: there is no server "${x}"`;
  }
  for (const [i, entry] of s.world.entries()) {
    for (const x of Object.keys(entry.servers ?? {})) if (!known.has(x)) return `world[${i}].servers.${x}: there is no server "${x}"`;
    for (const x of Object.keys(entry.transfers ?? {})) if (!known.has(x)) return `world[${i}].transfers.${x}: there is no server "${x}"`;
    const a = entry.action;
    if (!a) continue;
    const ids = 'exclude' in a ? a.exclude : 'include' in a ? a.include : 'connect' in a ? [a.connect] : [];
    for (const [j, x] of ids.entries()) if (!known.has(x)) return `world[${i}].action: there is no server "${x}"${ids.length > 1 ? ` (item ${j})` : ''}`;
    if ('autoOn' in a && !subscriptionIds.has(a.autoOn)) return `world[${i}].action.autoOn: there is no subscription "${a.autoOn}"`;
    if ('subscriptionUpdate' in a) {
      for (const sub of Object.keys(a.subscriptionUpdate)) {
        if (!subscriptionIds.has(sub)) return `world[${i}].action.subscriptionUpdate.${sub}: there is no subscription "${sub}"`;
      }
    }
  }
  return null;
}
