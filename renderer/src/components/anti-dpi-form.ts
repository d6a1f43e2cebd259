/**
 * The anti-DPI options as the forms hold them (Settings → Anti-censorship, and one server's
 * override in its details), checked with the settings' own schemas before anything is sent.
 * Every field stays as the user typed it until it validates, so a bad entry loses nothing.
 */
import type { TFunction } from 'i18next';
import { issuesByPlace } from '../../../shared/zod-issues';
import {
  type AntiDpiOverride,
  type AntiDpiSettings,
  type FragmentSettings,
  fragmentSettingsSchema,
  type NoiseSettings,
  noiseSettingsSchema,
} from '../../../shared/settings';

/** Fragment and noise as the inputs hold them (the settings' own shape: their values are text). */
export interface AntiDpiValues {
  fragment: FragmentSettings;
  noise: NoiseSettings;
}

/** What a field holds wrong, as a translation key under `antiDpi.error`. */
export type AntiDpiProblem = 'packets' | 'range' | 'randPacket' | 'base64' | 'empty' | 'tooLong';

/** Field ("fragment.length", "noise.packet") → what is wrong with it. */
export type AntiDpiErrors = Partial<Record<string, AntiDpiProblem>>;

const trimmed = (values: AntiDpiValues): AntiDpiValues => ({
  fragment: { ...values.fragment, packets: values.fragment.packets.trim(), length: values.fragment.length.trim(), interval: values.fragment.interval.trim() },
  // A `str` noise is sent as typed: its spaces are part of it.
  noise: { ...values.noise, packet: values.noise.type === 'str' ? values.noise.packet : values.noise.packet.trim(), delay: values.noise.delay.trim() },
});

function problemOf(field: string, values: AntiDpiValues): AntiDpiProblem {
  if (field === 'fragment.packets') return 'packets';
  if (field !== 'noise.packet') return 'range';
  const packet = values.noise.packet;
  if (packet.trim() === '') return 'empty';
  if (packet.length > 1000) return 'tooLong';
  return values.noise.type === 'base64' ? 'base64' : 'randPacket';
}

/**
 * Both parts checked, each with the schema the settings are stored with: the cleaned values, or
 * what is wrong, field by field. A part that is switched off is still checked: its values are
 * kept and would be used the moment it is switched on.
 */
export function checkAntiDpiValues(values: AntiDpiValues): { ok: true; values: AntiDpiValues } | { ok: false; errors: AntiDpiErrors } {
  const clean = trimmed(values);
  const errors: AntiDpiErrors = {};
  for (const [part, schema] of [
    ['fragment', fragmentSettingsSchema],
    ['noise', noiseSettingsSchema],
  ] as const) {
    const parsed = schema.safeParse(clean[part]);
    if (parsed.success) continue;
    for (const place of Object.keys(issuesByPlace(parsed.error))) {
      const field = `${part}.${place}`;
      errors[field] ??= problemOf(field, clean);
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, values: clean };
}

/** The message for a field, in the user's language. */
export function antiDpiErrorText(t: TFunction, problem: AntiDpiProblem | undefined): string | undefined {
  return problem && t(`antiDpi.error.${problem}`);
}

export function globalValuesOf(settings: AntiDpiSettings): AntiDpiValues {
  return { fragment: { ...settings.fragment }, noise: { ...settings.noise } };
}

/** The global block with new values, the per-server overrides as they are; null when nothing changed. */
export function globalAntiDpiChange(settings: AntiDpiSettings, values: AntiDpiValues): AntiDpiSettings | null {
  const next = { ...settings, fragment: values.fragment, noise: values.noise };
  return JSON.stringify(next) === JSON.stringify(settings) ? null : next;
}

/** What the user picks for one server: the global setting, off, or values of its own. */
export type OverrideChoice = 'global' | 'off' | 'custom';

export interface OverrideDraft {
  choice: OverrideChoice;
  /** The server's own values; the global ones until it has its own, so "custom" starts from them. */
  values: AntiDpiValues;
}

/**
 * A stored `on` (both options with the global values, as a settings file may say) is shown as
 * values of its own that are the global ones with both switched on: the same effect, editable.
 */
export function overrideDraftOf(settings: AntiDpiSettings, serverId: string): OverrideDraft {
  const override = settings.servers[serverId];
  const global = globalValuesOf(settings);
  if (override === undefined) return { choice: 'global', values: global };
  if (override === 'off') return { choice: 'off', values: global };
  if (override === 'on') return { choice: 'custom', values: { fragment: { ...global.fragment, enabled: true }, noise: { ...global.noise, enabled: true } } };
  return { choice: 'custom', values: { fragment: { ...override.fragment }, noise: { ...override.noise } } };
}

/**
 * The whole anti-DPI block with this server's override replaced (the block is sent whole), or what
 * is wrong with its own values. Values are checked only when they are to be used.
 */
export function withServerOverride(
  settings: AntiDpiSettings,
  serverId: string,
  draft: OverrideDraft,
): { ok: true; antiDpi: AntiDpiSettings } | { ok: false; errors: AntiDpiErrors } {
  let override: AntiDpiOverride | undefined;
  if (draft.choice === 'off') override = 'off';
  if (draft.choice === 'custom') {
    const checked = checkAntiDpiValues(draft.values);
    if (!checked.ok) return checked;
    override = checked.values;
  }
  const { [serverId]: _previous, ...others } = settings.servers;
  return { ok: true, antiDpi: { ...settings, servers: override === undefined ? others : { ...others, [serverId]: override } } };
}

