/**
 * Auto's keep/take decisions as the monitor's LOWEST lines (spec/monitor.md), with the fastest
 * member beside them so the log shows when Auto stayed on a slower server, and why.
 */
import type { AutoDecision } from '../../shared/domain/auto';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import type { SelectionReport } from '../monitor/monitor';

/** The subscription Auto is on, as far as the line needs it. */
export interface SelectionGroup {
  name: string;
  serverIds: readonly ServerId[];
}

/** The line for a decision (null for decisions that keep or take nothing). */
export function selectionReport(decision: AutoDecision, group: SelectionGroup | null, delayOf: (id: ServerId) => number | null): SelectionReport | null {
  if (decision.type !== 'stay' && decision.type !== 'switch') return null;
  const name = `Auto (${group?.name || 'off'})`;
  const fastestId = fastestOf(group?.serverIds ?? [], delayOf);
  return decision.type === 'stay'
    ? { group: name, decision: 'kept', serverId: decision.id, fastestId, reason: decision.reason }
    : { group: name, decision: 'taken', serverId: decision.to, fastestId, reason: decision.reason };
}

/** The member with the lowest delay now (the first of equals), null when none answered. */
export function fastestOf(ids: readonly ServerId[], delayOf: (id: ServerId) => number | null): ServerId | null {
  let best: { id: ServerId; delay: number } | null = null;
  for (const id of ids) {
    const delay = delayOf(id);
    if (delay !== null && (!best || delay < best.delay)) best = { id, delay };
  }
  return best?.id ?? null;
}

export interface SelectionLineSources {
  auto: { onDecision(listener: (decision: AutoDecision) => void): () => void; snapshot(): { subscriptionId: SubscriptionId | null } };
  subscriptions: { get(id: SubscriptionId): Subscription | undefined };
  monitor: { status(id: ServerId): { delayMs: number | null }; reportSelection(report: SelectionReport): void };
}

/** Writes each of Auto's keep/take decisions as a LOWEST line, as it is made. */
export function reportSelections({ auto, subscriptions, monitor }: SelectionLineSources): () => void {
  return auto.onDecision((decision) => {
    const subscriptionId = auto.snapshot().subscriptionId;
    const subscription = subscriptionId === null ? undefined : subscriptions.get(subscriptionId);
    const group = subscription ? { name: subscription.name, serverIds: subscription.servers.map((server) => server.id) } : null;
    const report = selectionReport(decision, group, (id) => monitor.status(id).delayMs);
    if (report) monitor.reportSelection(report);
  });
}
