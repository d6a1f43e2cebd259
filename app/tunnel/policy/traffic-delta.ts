/**
 * Turns the core's cumulative traffic counters into per-interval bytes. Counters are read, not
 * reset, so a lost reply loses nothing (the next reading still holds those bytes); a counter
 * that went down means the core restarted and counts from zero again.
 */
export interface TrafficCounters {
  up: number;
  down: number;
}

export function counterDelta(previous: number | null, current: number): number {
  if (previous === null || current < previous) return current;
  return current - previous;
}

export function trafficDelta(previous: TrafficCounters | null, current: TrafficCounters): TrafficCounters {
  return { up: counterDelta(previous?.up ?? null, current.up), down: counterDelta(previous?.down ?? null, current.down) };
}
