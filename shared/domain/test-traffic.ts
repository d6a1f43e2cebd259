/**
 * What the monitor's own tests cost in traffic through the servers: bytes up and down by kind of
 * test, over the last hour and the last day, and the optional daily cap.
 */

/** The kinds of test whose bytes are counted. */
export const TEST_KINDS = ['delay', 'transfer', 'ip-info', 'reachability', 'speed-test'] as const;
export type TestKind = (typeof TEST_KINDS)[number];

export interface ByteCount {
  up: number;
  down: number;
}

export type BytesByKind = Record<TestKind, ByteCount>;

export interface TestTrafficUsage {
  lastHour: BytesByKind;
  lastDay: BytesByKind;
  /** Bytes testing may use per 24 h; 0: no cap. */
  capBytesPerDay: number;
  /** The cap is reached: only delay probes of the current server and Auto's next candidates run. */
  capped: boolean;
}

export const noBytes = (): ByteCount => ({ up: 0, down: 0 });

export const noBytesByKind = (): BytesByKind => ({ delay: noBytes(), transfer: noBytes(), 'ip-info': noBytes(), reachability: noBytes(), 'speed-test': noBytes() });

/** Up and down of every kind together. */
export function totalBytes(byKind: BytesByKind): number {
  return TEST_KINDS.reduce((sum, kind) => sum + byKind[kind].up + byKind[kind].down, 0);
}
