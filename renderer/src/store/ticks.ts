/** Round time ticks for the time axes (the Auto timeline, the ping chart). */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const TICK_STEPS = [
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR,
];

/** The round step that gives at most about `count` ticks over `span` ms. */
export function tickStep(span: number, count = 6): number {
  return TICK_STEPS.find((step) => Math.max(1, span) / step <= count) ?? TICK_STEPS[TICK_STEPS.length - 1]!;
}

/**
 * Time ticks for an axis: a round step that gives about `count` ticks, on round times of the
 * user's clock. `utcOffsetMs` is the local zone's offset (+3:30 in Tehran): without it an hourly
 * tick would fall on hh:30 there.
 */
export function timeTicks(start: number, end: number, count = 6, utcOffsetMs = 0): number[] {
  const step = tickStep(end - start, count);
  const ticks: number[] = [];
  for (let t = Math.ceil((start + utcOffsetMs) / step) * step - utcOffsetMs; t <= end; t += step) ticks.push(t);
  return ticks;
}

/** The local zone's offset from UTC at `at` (ms, east positive), for timeTicks. */
export function localUtcOffsetMs(at: number): number {
  return -new Date(at).getTimezoneOffset() * MINUTE;
}
