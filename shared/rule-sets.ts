/**
 * Rule sets from sources the user chooses: a list of names or addresses fetched from a URL and
 * updated by itself, so routing keeps up with blocking lists that change every week. A set is
 * either one list of an Xray/v2ray `geosite.dat` / `geoip.dat`, or a sing-box rule set (binary
 * `.srs` or its source JSON). Its traffic goes to one outbound.
 */
import { z } from 'zod';

export const RULE_SET_FORMATS = ['geosite-dat', 'geoip-dat', 'srs', 'source-json'] as const;
export type RuleSetFormat = (typeof RULE_SET_FORMATS)[number];

/** Formats that hold many lists, of which a set takes one by name. */
export const LIST_FORMATS: ReadonlySet<RuleSetFormat> = new Set(['geosite-dat', 'geoip-dat']);

export const RULE_SET_LIMITS = {
  sets: 32,
  minUpdateHours: 1,
  maxUpdateHours: 24 * 30,
  defaultUpdateHours: 24,
} as const;

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

export const ruleSetSchema = z
  .object({
    /** Stable, file-name safe: the copy on disk is named after it. */
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'is not a rule-set id (a-z, 0-9 and "-", at most 40)'),
    name: z.string().trim().min(1, 'has no name').max(80, 'has a name longer than 80 characters'),
    url: z.string().regex(HTTP_URL, 'is not an http:// or https:// address'),
    format: z.enum(RULE_SET_FORMATS, { error: (issue) => `unknown format ${JSON.stringify(issue.input)}: use ${RULE_SET_FORMATS.join(', ')}` }),
    /** The list inside a `.dat` file (`ru-blocked`, `ir`, `cn`); matched without regard to case, as the cores do. */
    list: z
      .string()
      .regex(/^[A-Za-z0-9!_.-]{1,64}$/, 'is not a list name (letters, digits, "!", "_", "." and "-")')
      .optional(),
    outbound: z.enum(['proxy', 'direct', 'block'], { error: (issue) => `unknown outbound ${JSON.stringify(issue.input)}: use proxy, direct, block` }),
    updateHours: z.number().int().min(RULE_SET_LIMITS.minUpdateHours).max(RULE_SET_LIMITS.maxUpdateHours).default(RULE_SET_LIMITS.defaultUpdateHours),
    enabled: z.boolean().default(false),
    /**
     * Used by the region preset in place of its shipped snapshot: a name set replaces the
     * preset's names, an address set its IP ranges.
     */
    inPlaceOfPreset: z.boolean().default(false),
  })
  .strict()
  .superRefine((set, ctx) => {
    if (LIST_FORMATS.has(set.format) && !set.list) ctx.addIssue({ code: 'custom', path: ['list'], message: `a ${set.format} set needs the name of its list`, params: { topic: 'rule-set-needs-list', format: set.format } });
    if (!LIST_FORMATS.has(set.format) && set.list) ctx.addIssue({ code: 'custom', path: ['list'], message: `a ${set.format} set holds one list: leave the list name out`, params: { topic: 'rule-set-one-list', format: set.format } });
  });
export type RuleSet = z.infer<typeof ruleSetSchema>;

export const ruleSetsSchema = z
  .array(ruleSetSchema)
  .max(RULE_SET_LIMITS.sets, { error: (issue) => `holds ${Array.isArray(issue.input) ? issue.input.length : 'too many'} rule sets; at most ${RULE_SET_LIMITS.sets}` })
  .superRefine((sets, ctx) => {
    const seen = new Set<string>();
    sets.forEach((set, i) => {
      if (seen.has(set.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `"${set.id}" is used by two rule sets`, params: { topic: 'rule-set-id-twice', value: set.id } });
      seen.add(set.id);
    });
  })
  .default([]);

/** Whether a set holds names (domain rules) or addresses; `srs`/JSON may hold both. */
export function ruleSetHolds(format: RuleSetFormat): 'names' | 'addresses' | 'either' {
  return format === 'geosite-dat' ? 'names' : format === 'geoip-dat' ? 'addresses' : 'either';
}

/**
 * The well-known sources, off until chosen. The release file names are the ones these projects
 * publish under `releases/latest/download/` (or the branch sing-box clients read).
 */
export const RULE_SET_CATALOGUE: readonly RuleSet[] = [
  {
    id: 'runetfreedom-ru-blocked',
    name: 'runetfreedom: blocked in Russia (names)',
    url: 'https://github.com/runetfreedom/russia-v2ray-rules-dat/releases/latest/download/geosite.dat',
    format: 'geosite-dat',
    list: 'ru-blocked',
    outbound: 'proxy',
    updateHours: 24,
    enabled: false,
    inPlaceOfPreset: false,
  },
  {
    id: 'runetfreedom-ru-ip',
    name: 'runetfreedom: Russian addresses',
    url: 'https://github.com/runetfreedom/russia-v2ray-rules-dat/releases/latest/download/geoip.dat',
    format: 'geoip-dat',
    list: 'ru',
    outbound: 'direct',
    updateHours: 24,
    enabled: false,
    inPlaceOfPreset: true,
  },
  {
    id: 'chocolate4u-ir',
    name: 'Chocolate4U: Iranian sites',
    url: 'https://github.com/Chocolate4U/Iran-v2ray-rules/releases/latest/download/geosite.dat',
    format: 'geosite-dat',
    list: 'ir',
    outbound: 'direct',
    updateHours: 24,
    enabled: false,
    inPlaceOfPreset: true,
  },
  {
    id: 'chocolate4u-ir-ip',
    name: 'Chocolate4U: Iranian addresses (sing-box)',
    url: 'https://raw.githubusercontent.com/Chocolate4U/Iran-sing-box-rules/rule-set/geoip-ir.srs',
    format: 'srs',
    outbound: 'direct',
    updateHours: 24,
    enabled: false,
    inPlaceOfPreset: true,
  },
  {
    id: 'loyalsoldier-cn',
    name: 'Loyalsoldier: Chinese sites',
    url: 'https://github.com/Loyalsoldier/v2ray-rules-dat/releases/latest/download/geosite.dat',
    format: 'geosite-dat',
    list: 'cn',
    outbound: 'direct',
    updateHours: 24,
    enabled: false,
    inPlaceOfPreset: true,
  },
  {
    id: 'loyalsoldier-gfw',
    name: 'Loyalsoldier: blocked in China (gfw)',
    url: 'https://github.com/Loyalsoldier/v2ray-rules-dat/releases/latest/download/geosite.dat',
    format: 'geosite-dat',
    list: 'gfw',
    outbound: 'proxy',
    updateHours: 24,
    enabled: false,
    inPlaceOfPreset: false,
  },
];
