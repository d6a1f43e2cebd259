/** The ping history chart's data: measurements in time order, failures as marks at the top. */
import type { Measurement } from '../../../shared/domain/measurement';

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
