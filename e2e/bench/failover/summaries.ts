/**
 * The failover bench's figures from its trials: medians and p95s, the blackhole and reset
 * targets, and the split by case (cases.ts) and by the failing server's kind. A reset means two
 * things on the wire: an RST on a TCP server, an ICMP port unreachable on a UDP (QUIC) one, which
 * quic-go never hears (it reads from an unconnected socket), so to the client a reset QUIC server
 * is a silent one. The TCP goal (median ≤ 1 s, the core's dial failure says the server is gone)
 * holds for TCP kinds only; UDP kinds are reported beside them, against the blackhole's goal.
 * Pure: the rules are in summaries.test.ts.
 */
import { median, quantile, round } from '../harness';
import type { FailoverTrial, ResetTrial } from './scenarios';
import type { Spent } from './trial';

export function stats(prefix: string, values: (number | null)[]): Record<string, number | null> {
  const v = values.filter((x): x is number => x !== null);
  if (v.length === 0) return { [`${prefix}_median_ms`]: null };
  return {
    [`${prefix}_median_ms`]: round(median(v)),
    [`${prefix}_p95_ms`]: round(quantile(v, 0.95)),
    [`${prefix}_min_ms`]: round(Math.min(...v)),
    [`${prefix}_max_ms`]: round(Math.max(...v)),
  };
}

export function spentSummary(spent: Spent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(spent[0] ?? {}) as (keyof Spent)[]) {
    const values = spent.map((s) => s[key]);
    out[`${key}_median`] = round(median(values));
    out[`${key}_total`] = values.reduce((a, b) => a + b, 0);
  }
  return out;
}

export function count(values: (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v ?? 'none'] = (out[v ?? 'none'] ?? 0) + 1;
  return out;
}

/** A trial that never recovered counts as infinitely slow: a target is then missed, not skipped. */
const recoveries = (trials: readonly FailoverTrial[]) => trials.map((t) => t.recovery_ms ?? Number.POSITIVE_INFINITY);

export function failoverSummary(trials: FailoverTrial[]) {
  const recovered = trials.filter((t) => t.recovery_ms !== null);
  return {
    trials: trials.length,
    recovered: recovered.length,
    ...stats('recovery', trials.map((t) => t.recovery_ms)),
    ...stats('detect', trials.map((t) => t.detect_ms)),
    ...stats('check', trials.map((t) => t.check_ms)),
    ...stats('reconnect', trials.map((t) => t.reconnect_ms)),
    ...stats('others_answered', trials.map((t) => t.others_answered_ms)),
    triggers: count(trials.map((t) => t.trigger)),
    decided_from_answers_in_hand: trials.filter((t) => t.switched_on_answer_in_hand).length,
    landed_in: count(trials.map((t) => t.to_subscription)),
    landed_on_kind: count(trials.map((t) => t.to_kind)),
    probes: spentSummary(trials.map((t) => t.spent)),
  };
}

/** Preparing at half the threshold lets the check decide as it starts: stall + 0.6 s, + 1.5 s. */
export function blackholeTarget(trials: readonly FailoverTrial[], stallMs: number) {
  const values = recoveries(trials);
  return {
    median_le_ms: stallMs + 600,
    p95_le_ms: stallMs + 1500,
    median_met: median(values) <= stallMs + 600,
    p95_met: quantile(values, 0.95) <= stallMs + 1500,
  };
}

export function summarizeBlackhole(trials: FailoverTrial[], stallMs: number) {
  return { ...failoverSummary(trials), target: blackholeTarget(trials, stallMs) };
}

export interface KindFigures {
  carrier: 'tcp' | 'udp';
  trials: number;
  recovered: number;
  recovery_median_ms: number | null;
  recovery_p95_ms: number | null;
  dial_failure_median_ms: number | null;
  detect_median_ms: number | null;
  triggers: Record<string, number>;
  decided_from_answers_in_hand: number;
}

/** Reset figures per failing server kind, each with what its relay carries. */
export function resetByKind(trials: readonly ResetTrial[]): Record<string, KindFigures> {
  const byKind: Record<string, KindFigures> = {};
  for (const kind of new Set(trials.map((t) => t.protocol))) {
    const mine = trials.filter((t) => t.protocol === kind);
    const of = (pick: (t: ResetTrial) => number | null) => mine.map(pick).filter((x): x is number => x !== null);
    const recovered = of((t) => t.recovery_ms);
    const failures = of((t) => t.dial_failure_ms);
    const detected = of((t) => t.detect_ms);
    byKind[kind] = {
      carrier: mine[0]!.carrier,
      trials: mine.length,
      recovered: recovered.length,
      recovery_median_ms: recovered.length ? round(median(recovered)) : null,
      recovery_p95_ms: recovered.length ? round(quantile(recovered, 0.95)) : null,
      dial_failure_median_ms: failures.length ? round(median(failures)) : null,
      detect_median_ms: detected.length ? round(median(detected)) : null,
      triggers: count(mine.map((t) => t.trigger)),
      decided_from_answers_in_hand: mine.filter((t) => t.switched_on_answer_in_hand).length,
    };
  }
  return byKind;
}

/**
 * The reset goals: every TCP kind's median ≤ 1 s (a kind with a trial that never recovered
 * misses it); each UDP kind against the blackhole's goal, because its client meets silence.
 */
export function resetTarget(trials: readonly ResetTrial[], stallMs: number) {
  const tcp = trials.filter((t) => t.carrier === 'tcp');
  const udp = trials.filter((t) => t.carrier === 'udp');
  const tcpKinds = [...new Set(tcp.map((t) => t.protocol))];
  const medianOf = (kind: string) => median(recoveries(tcp.filter((t) => t.protocol === kind)));
  const udpKinds = [...new Set(udp.map((t) => t.protocol))];
  return {
    tcp: {
      what: 'an RST on connect and on open connections: the core’s dial failure says the server is gone',
      median_le_ms: 1000,
      kinds: tcpKinds.length,
      median_met: tcp.length === 0 ? null : median(recoveries(tcp)) <= 1000,
      every_kind_met: tcp.length === 0 ? null : tcpKinds.every((k) => medianOf(k) <= 1000),
      kinds_missed: tcpKinds.filter((k) => medianOf(k) > 1000),
    },
    udp: Object.fromEntries(
      udpKinds.map((kind) => [
        kind,
        {
          what: 'ICMP port unreachable, which quic-go does not hear: silence to the client, so the blackhole’s goal',
          ...blackholeTarget(udp.filter((t) => t.protocol === kind), stallMs),
        },
      ]),
    ),
  };
}

export function summarizeReset(trials: ResetTrial[], stallMs: number) {
  return {
    ...failoverSummary(trials),
    ...stats('new_dial_give_up', trials.flatMap((t) => t.new_dials.map((d) => d.give_up_ms))),
    new_dials_retried: trials.reduce((n, t) => n + t.new_dials.filter((d) => d.attempts > 1).length, 0),
    new_dials: trials.reduce((n, t) => n + t.new_dials.length, 0),
    ...stats('dial_retrying', trials.map((t) => t.dial_retrying_ms)),
    ...stats('dial_failure', trials.map((t) => t.dial_failure_ms)),
    dial_retrying_seen: trials.filter((t) => t.dial_retrying_ms !== null).length,
    dial_failure_kinds: count(trials.map((t) => t.dial_failure_kind)),
    by_server_kind: resetByKind(trials),
    target: resetTarget(trials, stallMs),
  };
}

/**
 * A scenario's trials of several cases: each case summarized alone (its own target), and for the
 * reset the kinds across every case, the failing server's kind being what its goal is about.
 */
export function summarizeCases<T extends FailoverTrial>(trials: T[], summarize: (mine: T[]) => Record<string, unknown>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of new Set(trials.map((t) => t.case))) {
    const mine = trials.filter((t) => t.case === name);
    out[name] = { ...summarize(mine), per_trial: mine };
  }
  return out;
}
