/** The ping history chart's data: measurements in time order, failures as marks at the top. */
import type { Measurement } from '../../../shared/domain/measurement';
import { tickStep, timeTicks } from './ticks';

export interface ChartPoint {
  at: number;
  /** The delay, or null for a failed probe (a gap in the line). */
  delay: number | null;
  /** Failed probes are drawn at this height (above every answer), else null. */
  failed: number | null;
  method: Measurement['method'];
  error?: Measurement['error'];
}

export interface ChartData {
  points: ChartPoint[];
  /** Top of the delay axis; failure marks sit on it. */
  ceiling: number;
}

export function chartData(measurements: readonly Measurement[]): ChartData {
  const sorted = [...measurements].sort((a, b) => a.at - b.at);
  const answered = sorted.map((m) => m.delayMs).filter((d): d is number => d !== null);
  const highest = answered.length ? Math.max(...answered) : 0;
  const ceiling = Math.max(100, Math.ceil((highest * 1.15) / 50) * 50);
  return {
    ceiling,
    points: sorted.map((m) => ({
      at: m.at,
      delay: m.delayMs,
      failed: m.delayMs === null ? ceiling : null,
      method: m.method,
      ...(m.error ? { error: m.error } : {}),
    })),
  };
}

/** How tick labels read: "14:02:05", "14:02", or with the date when the span crosses days. */
export type TickLabel = 'seconds' | 'minutes' | 'date-time';

export interface TimeAxis {
  domain: [number, number];
  ticks: number[];
  label: TickLabel;
}

const DAY_MS = 86_400_000;

/**
 * The chart's time axis from the data's own span: round ticks (on the user's clock, see
 * timeTicks) whose labels never repeat — a short history got "03:36 PM" twice when the chart
 * picked its own ticks and showed them to the minute. A little room at both ends keeps the first
 * and last dots whole.
 */
export function timeAxis(points: readonly { at: number }[], count = 6, utcOffsetMs = 0): TimeAxis {
  if (points.length === 0) return { domain: [0, 1], ticks: [], label: 'minutes' };
  const first = points[0]!.at;
  const last = points[points.length - 1]!.at;
  const span = last - first;
  if (span <= 0) return { domain: [first - 30_000, first + 30_000], ticks: [first], label: 'seconds' };
  const pad = Math.max(500, span * 0.03);
  const step = tickStep(span, count);
  const ticks = timeTicks(first, last, count, utcOffsetMs);
  const label: TickLabel = step < 60_000 || ticks.length < 2 ? 'seconds' : span >= DAY_MS * 0.8 ? 'date-time' : 'minutes';
  return { domain: [first - pad, last + pad], ticks: ticks.length >= 2 ? ticks : [first, last], label };
}
