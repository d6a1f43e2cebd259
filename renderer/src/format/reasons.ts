/**
 * The engine's reasons in the user's language. Where the engine gives structure (a verdict with
 * its vantage points, Auto's reason codes, a probe failure's kind), the sentence is composed here
 * with i18n and the server names of this window; the engine's own English words stay available as
 * the detail (a tooltip), and are what is shown for anything this renderer does not know yet (a
 * newer engine's code), rather than a raw code or nothing.
 */
import type { TFunction } from 'i18next';
import { PROBE_FAILURES, type ProbeFailure } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import { CHECK_TRIGGERS, SWITCH_REASONS, type TimelineEntry } from '../../../shared/domain/auto';
import { type Reachability, VERDICTS } from '../../../shared/domain/status';
import { isolate } from './format';

/** Auto's `stay` reasons (app/auto/policy/check-end.ts). */
export const STAY_REASONS = ['current-answered', 'return-pending', 'nobody-answered', 'own-subscription-silent', 'nothing-passes'] as const;
/** Why a due check waits (app/auto/policy/limits.ts HoldReason, and check-end's own-sub-retry). */
export const PAUSE_REASONS = ['after-switch', 'after-check', 'network-lost', 'rate-limited', 'own-sub-retry'] as const;

const known = <T extends string>(list: readonly T[], value: unknown): value is T => typeof value === 'string' && (list as readonly string[]).includes(value);

const listFormats = new Map<string, Intl.ListFormat>();

/** "B1, B2 and C2" in the UI language, each name isolated so its direction cannot spill over. */
export function nameList(names: readonly string[], language: string): string {
  // Most verdicts name no vantage point: no list format to build (its first costs a locale load).
  if (names.length === 0) return '';
  let format = listFormats.get(language);
  if (!format) listFormats.set(language, (format = new Intl.ListFormat(language, { style: 'long', type: 'conjunction' })));
  return format.format(names.map(isolate));
}

/** The first letter in upper case where the script has one ("blocked here" → "Blocked here"). */
export function capitalize(text: string, language: string): string {
  return text.charAt(0).toLocaleUpperCase(language) + text.slice(1);
}

export interface VerdictWords {
  /** What the vantage points saw, as a phrase following the verdict ("reached through B1 and B2, not from your network"). */
  sentence: string;
  /** The verdict and the phrase: "Blocked here: reached through B1 and B2, not from your network". */
  summary: string;
  /** The engine's own words (English, with exit networks and failure counts). */
  detail: string;
}

export interface VerdictContext {
  t: TFunction;
  language: string;
  /** The target server's name. */
  server: string;
  nameOf(id: ServerId): string;
  /** The trusted checker of the settings: its single vote decides (spec/reachability.md rule 6). */
  trustedCheckerId: ServerId | null;
}

/** The reachability verdict in words, from its verdict and vantage points (spec/reachability.md). */
export function describeVerdict(reachability: Reachability, context: VerdictContext): VerdictWords {
  const { t, language } = context;
  const detail = reachability.reason;
  if (!known(VERDICTS, reachability.verdict)) return { sentence: detail, summary: detail, detail };
  const reachedIds = reachability.vantagePoints.filter((p) => p.reached).map((p) => p.serverId);
  const unreachedIds = reachability.vantagePoints.filter((p) => !p.reached).map((p) => p.serverId);
  const names = (ids: ServerId[]) => nameList(ids.map((id) => context.nameOf(id)), language);
  const reached = names(reachedIds);
  const unreached = names(unreachedIds);
  const server = isolate(context.server);
  const trusted = reachability.vantagePoints.length === 1 && reachability.vantagePoints[0]!.serverId === context.trustedCheckerId;
  const checker = trusted ? isolate(context.nameOf(context.trustedCheckerId!)) : '';

  let sentence: string;
  switch (reachability.verdict) {
    case 'ok':
      sentence = t('reach.ok');
      break;
    case 'failing':
      sentence = t('reach.failing');
      break;
    case 'blocked-here':
      if (trusted && reachedIds.length === 1) sentence = t('reach.blockedTrusted', { checker });
      else if (reachedIds.length === 0) sentence = t('reach.blockedNoDetail');
      else if (unreachedIds.length > 0) sentence = t('reach.blockedDisputed', { reached, unreached });
      else sentence = t('reach.blocked', { reached });
      break;
    case 'blocked':
      sentence = trusted ? t('reach.blockedByChecker', { checker }) : t('reach.addressBlocked');
      break;
    case 'down':
      if (unreachedIds.length === 0) sentence = t('reach.downNoDetail');
      else sentence = t('reach.down', { unreached });
      break;
    case 'unknown':
      if (reachedIds.length === 0 && unreachedIds.length === 0) sentence = t('reach.unknown');
      else if (unreachedIds.length === 0) sentence = t('reach.onlyReached', { reached });
      else if (reachedIds.length > 0) sentence = t('reach.disagree', { reached, unreached });
      else if (unreachedIds.length === 1) sentence = t('reach.path', { vantage: unreached, server });
      else sentence = t('reach.oneNetwork', { unreached });
      break;
  }
  const summary = t('reach.summary', { verdict: capitalize(t(`verdict.${reachability.verdict}`), language), sentence });
  return { sentence, summary, detail };
}

/** A probe failure in words; a kind this renderer does not know yet shows the prober's own detail. */
export function failureText(t: TFunction, kind: string, message?: string): string {
  if (known<ProbeFailure>(PROBE_FAILURES, kind)) return t(`failure.${kind}`);
  return message?.trim() || kind;
}

/**
 * Why a check started, or the engine's code for a trigger this renderer does not know yet; a dial
 * failure says how the dial failed when the core said ("the core could not connect (connection reset)"),
 * a freeze what the transfer test saw ("traffic freezes after 16 KB on A1").
 */
export function triggerText(t: TFunction, trigger: string, failure?: string, freeze?: FreezeWords): string {
  if (trigger === 'freeze' && freeze) {
    // "traffic freezes after 16 KB on A1": the bytes before the silence, in whole KB.
    return freeze.verdict === 'throttled' ? t('trigger.throttledOn', { server: freeze.server }) : t('trigger.freezeAfter', { server: freeze.server, kb: Math.round(freeze.bytes / 1024) });
  }
  const text = known(CHECK_TRIGGERS, trigger) ? t(`trigger.${trigger}`) : trigger;
  return failure ? `${text} (${failureText(t, failure)})` : text;
}

/** What a freeze check's line says of the current server's transfer (its name already isolated). */
export interface FreezeWords {
  server: string;
  verdict: 'freezes' | 'throttled';
  bytes: number;
}

type Of<T extends TimelineEntry['type']> = Extract<TimelineEntry, { type: T }>;

/** Why Auto switched; `names` are already isolated. A newer engine's code is shown as it is. */
export function switchReasonText(t: TFunction, entry: Of<'switch'>, names: { from: string; to: string }): string {
  return known(SWITCH_REASONS, entry.reason) ? t(`switchReason.${entry.reason}`, names) : isolate(entry.reason);
}

/**
 * Why Auto stayed, or null when it gave no reason. `return-pending` carries how far the server Auto
 * left is on its way back (candidate, answers, needed) beside the reason code.
 */
export function stayReasonText(t: TFunction, entry: Of<'stay'>, nameOf: (id: ServerId) => string): string | null {
  const reason = entry.reason;
  if (!reason) return null;
  if (!known(STAY_REASONS, reason)) return isolate(reason);
  if (reason === 'return-pending') {
    const extra = entry as Of<'stay'> & { candidate?: unknown; answers?: unknown; needed?: unknown };
    if (typeof extra.candidate === 'string' && typeof extra.answers === 'number' && typeof extra.needed === 'number') {
      return t('stayReason.returnPendingCount', { candidate: isolate(nameOf(extra.candidate)), count: extra.answers, needed: extra.needed });
    }
  }
  return t(`stayReason.${reason}`);
}

/** What holds a due check back. */
export function pauseReasonText(t: TFunction, reason: string): string | null {
  if (!reason) return null;
  return known(PAUSE_REASONS, reason) ? t(`pauseReason.${reason}`) : isolate(reason);
}
