import type { Measurement, ServerStatistics } from '../../../shared/domain/measurement';

/**
 * The observatory's statistics over a server's measurements (spec/observatory.md): count of all,
 * failures, average, standard deviation, min and max of the answered ones. With a single answered
 * sample the deviation is estimated as average / 2, so a server with one lucky sample is not
 * preferred over one with more data. Only measurements at or after `since` count.
 */
export function computeStatistics(measurements: readonly Measurement[], since = Number.NEGATIVE_INFINITY): ServerStatistics {
  const valid = measurements.filter((m) => m.at >= since);
  const answered = valid.flatMap((m) => (m.delayMs === null ? [] : [m.delayMs]));
  const failures = valid.length - answered.length;
  if (answered.length === 0) {
    return { count: valid.length, failures, averageMs: null, deviationMs: null, minMs: null, maxMs: null };
  }
  const average = answered.reduce((sum, d) => sum + d, 0) / answered.length;
  const deviation =
    answered.length < 2
      ? average / 2
      : Math.sqrt(answered.reduce((sum, d) => sum + (d - average) ** 2, 0) / answered.length);
  return {
    count: valid.length,
    failures,
    averageMs: round(average),
    deviationMs: round(deviation),
    minMs: Math.min(...answered),
    maxMs: Math.max(...answered),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
