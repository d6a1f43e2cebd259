/**
 * Checks of a TLS ClientHello as a server received it (chunks recorded at a relay), against the
 * anti-DPI fragment options: shared by the tests that prove the options on the wire, for servers
 * Xray runs and for those sing-box carries.
 */
import { expect } from 'vitest';
import { type Arrival, clientHelloRecords, clientHelloServerName } from './wire-watch';

export function describeHello(chunks: readonly Arrival[]) {
  const found = clientHelloRecords(chunks);
  if (!found) return null;
  const start = chunks[0]!.atMs;
  return {
    serverName: clientHelloServerName(found.hello),
    helloBytes: found.hello.length,
    records: found.records.map((r) => ({ length: r.length, chunk: r.chunk, atMs: Math.round(r.completedAtMs - start) })),
  };
}

export const range = (text: string) => {
  const [low, high = low] = text.split('-').map(Number) as [number, number?];
  return { low, high: high ?? low };
};

/**
 * Whether arrival times (of at most `pieces` pieces) are spaced by the interval. Xray sleeps at
 * least the interval's low end after each piece; on a busy machine the server may read a piece
 * late, which shortens the next gap as much as it lengthens this one, so the spacing is judged by
 * the mean gap (a late first read can take a little off it, a slow wake-up add some).
 */
export function expectSpaced(times: readonly number[], interval: { low: number; high: number }, label: string, pieces = times.length) {
  const gaps = times.slice(1).map((t, i) => Math.round(t - times[i]!));
  const span = times.at(-1)! - times[0]!;
  expect(span / (times.length - 1), `${label}: gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(interval.low * 0.8);
  expect(span / (pieces - 1), `${label}: gaps ${gaps.join(', ')} ms`).toBeLessThanOrEqual(interval.high + 20);
}

/**
 * The ClientHello's pieces as the server received them, checked against the fragment options:
 * each piece its own TLS record, every one but the last within the length range (the last is
 * what is left), spaced by the interval.
 */
export function expectFragmented(chunks: readonly Arrival[], fragment: { length: string; interval: string }, serverName: string, label: string) {
  const hello = describeHello(chunks);
  expect(hello?.serverName, label).toBe(serverName);
  const pieces = hello!.records;
  const length = range(fragment.length);
  expect(pieces.length, label).toBeGreaterThanOrEqual(Math.ceil(hello!.helloBytes / length.high));
  for (const piece of pieces.slice(0, -1)) expect(piece.length, label).toSatisfy((n: number) => n >= length.low && n <= length.high);
  expect(pieces.at(-1)!.length, label).toSatisfy((n: number) => n >= 1 && n <= length.high);
  expectSpaced(pieces.map((p) => p.atMs), range(fragment.interval), label);
}

/** The ClientHello arrived whole: one TLS record holding all of it. */
export function expectWhole(chunks: readonly Arrival[], serverName: string, label: string) {
  const hello = describeHello(chunks);
  expect(hello?.serverName, label).toBe(serverName);
  expect(hello?.records.map((r) => r.length), label).toEqual([hello!.helloBytes]);
}
