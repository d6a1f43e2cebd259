/**
 * The fault relay's rules as pure functions: what a connection from a given source meets under a
 * given fault (pass, blackhole, reset), when a flapping server changes phase, and when each chunk
 * may leave (latency each way, jitter that keeps order, a bandwidth cap). Time and randomness come
 * in as arguments so every rule is a table-driven test.
 */

export const FAULT_MODES = ['none', 'blackhole', 'reset', 'refuse', 'slow', 'flap', 'blocked-here', 'freeze', 'throttle'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** The user's own address: Linux sources every 127/8 connection of the user's apps from it. */
export const USER_ADDRESS = '127.0.0.1';
/**
 * The user's own address over IPv6 loopback (the target also answers on ::1). An IPv6-capable
 * lab server leaves from it too (::1 is the only IPv6 loopback address), which is harmless: the
 * user's network being offline already cuts the user off from every server.
 */
export const USER_ADDRESS_V6 = '::1';

export function isUserAddress(source: string): boolean {
  const address = normalizeAddress(source);
  return address === USER_ADDRESS || address === USER_ADDRESS_V6;
}

export const DEFAULT_PERIOD_MS = 10_000;
export const DEFAULT_BANDWIDTH_KBPS = 256;
/** Where DPI freezes a connection to a foreign hosting address in the field: 16-20 KB in. */
export const DEFAULT_FREEZE_AFTER_BYTES = 16 * 1024;
/** A throttled address: a trickle of 12 KB/s. */
export const DEFAULT_THROTTLE_BYTES_PER_SECOND = 12 * 1024;

export interface FaultState {
  fault: FaultMode;
  latencyMs: number;
  jitterMs: number;
  periodMs: number;
  bandwidthKbps: number;
  /** `freeze`: bytes each direction of a connection carries before it goes silent (kept open). */
  afterBytes: number;
  /**
   * `throttle`: the cap in bytes per second. `slow` caps too, but in kilobits per second with a
   * default for the demo; `throttle` names the figure field reports give.
   */
  bytesPerSecond: number;
  /** When the current fault was set (flap phases count from here). */
  since: number;
}

/**
 * What a connection meets right now. `refuse` never reaches here for new connections (the
 * listener is closed); existing ones are dropped.
 */
export type Verdict = 'pass' | 'blackhole' | 'reset' | 'drop';

export function normalizeAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Flap starts down: a server that just turned flaky is noticed at once. */
export function flapIsDown(state: Pick<FaultState, 'periodMs' | 'since'>, now: number): boolean {
  const phase = Math.floor(Math.max(0, now - state.since) / Math.max(1, state.periodMs));
  return phase % 2 === 0;
}

/** When the flap phase next changes (for re-checking existing connections). */
export function nextFlapChange(state: Pick<FaultState, 'periodMs' | 'since'>, now: number): number {
  const period = Math.max(1, state.periodMs);
  const phase = Math.floor(Math.max(0, now - state.since) / period);
  return state.since + (phase + 1) * period;
}

export function verdictFor(state: FaultState, source: string, offline: boolean, now: number): Verdict {
  const fromUser = isUserAddress(source);
  switch (state.fault) {
    case 'reset':
      return 'reset';
    case 'refuse':
      return 'drop';
    default:
      break;
  }
  // The user's network being gone swallows the user's packets whatever the server does.
  if (offline && fromUser) return 'blackhole';
  switch (state.fault) {
    case 'blackhole':
      return 'blackhole';
    case 'flap':
      return flapIsDown(state, now) ? 'blackhole' : 'pass';
    case 'blocked-here':
      return fromUser ? 'blackhole' : 'pass';
    default:
      return 'pass';
  }
}

/** The shaping that applies to bytes in flight under a fault. */
export interface Shaping {
  latencyMs: number;
  jitterMs: number;
  /** null = no cap. */
  bandwidthKbps: number | null;
}

export function shapingFor(state: FaultState): Shaping {
  return {
    latencyMs: state.latencyMs,
    jitterMs: state.jitterMs,
    bandwidthKbps: state.fault === 'slow' ? state.bandwidthKbps : state.fault === 'throttle' ? (state.bytesPerSecond * 8) / 1000 : null,
  };
}

/**
 * How many bytes each direction of a connection may carry in all (null: no limit). Under `freeze`
 * a connection passes its first `afterBytes` each way, then nothing more, while staying open:
 * what DPI does to a TCP connection it has decided to throttle to death. It counts from the
 * connection's first byte, so a connection that already carried more freezes the moment the
 * fault is set.
 */
export function deliveryBudget(state: FaultState): number | null {
  return state.fault === 'freeze' ? state.afterBytes : null;
}

/** One direction's timing memory: order is kept and the capped "wire" is shared by its chunks. */
export interface LaneClock {
  lastReleaseAt: number;
  wireFreeAt: number;
}

export function newLaneClock(): LaneClock {
  return { lastReleaseAt: Number.NEGATIVE_INFINITY, wireFreeAt: Number.NEGATIVE_INFINITY };
}

/**
 * When a chunk of `bytes` arriving at `now` may be delivered: after its serialisation time on the
 * capped wire (if any), plus latency, plus 0..jitter, and never before the chunk ahead of it.
 * Returns the release time and the lane's next clock.
 */
export function scheduleChunk(clock: LaneClock, now: number, bytes: number, shaping: Shaping, random: () => number): { at: number; clock: LaneClock } {
  let sentAt = now;
  let wireFreeAt = clock.wireFreeAt;
  if (shaping.bandwidthKbps !== null && shaping.bandwidthKbps > 0) {
    const start = Math.max(now, clock.wireFreeAt);
    wireFreeAt = start + (bytes * 8) / shaping.bandwidthKbps;
    sentAt = wireFreeAt;
  }
  const jitter = shaping.jitterMs > 0 ? random() * shaping.jitterMs : 0;
  const at = Math.max(sentAt + shaping.latencyMs + jitter, clock.lastReleaseAt);
  return { at, clock: { lastReleaseAt: at, wireFreeAt } };
}

/**
 * Under a cap, big reads are cut into pieces of about 20 ms of wire time each, so the rate is smooth
 * instead of one burst per 64 KiB read.
 */
export function pieceSize(shaping: Shaping): number {
  if (!shaping.bandwidthKbps || shaping.bandwidthKbps <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(512, Math.floor((shaping.bandwidthKbps * 1000) / 8 / 50));
}

/**
 * How long a datagram may wait for a capped wire before the relay drops it, as a router's queue
 * does: a UDP sender is not slowed by back-pressure, so without a limit a `slow` or `throttle`
 * relay would only grow its queue. Half a second is a deep buffer on a real link.
 */
export const DATAGRAM_QUEUE_LIMIT_MS = 500;

/**
 * When a datagram of `bytes` arriving at `now` may be delivered, or null when it is dropped: it
 * would wait longer than `queueLimitMs` for the capped wire (tail drop; the clock is unchanged),
 * or it no longer fits the direction's delivery budget (`freeze`: a datagram is never cut). The
 * order of delivered datagrams is kept, as on one path.
 */
export function scheduleDatagram(
  clock: LaneClock,
  now: number,
  bytes: number,
  delivered: number,
  shaping: Shaping,
  budget: number | null,
  random: () => number,
  queueLimitMs = DATAGRAM_QUEUE_LIMIT_MS,
): { at: number; clock: LaneClock } | null {
  if (budget !== null && delivered + bytes > budget) return null;
  if (shaping.bandwidthKbps !== null && shaping.bandwidthKbps > 0 && clock.wireFreeAt - now > queueLimitMs) return null;
  return scheduleChunk(clock, now, bytes, shaping, random);
}

/**
 * UDP has no connection to reset. A `reset` or `refuse` server's UDP port is closed, so the kernel
 * answers each datagram with ICMP port unreachable, which a client's connected UDP socket reports
 * as ECONNREFUSED at once: the datagram form of both. Every other fault keeps the port open.
 */
export function udpPortOpen(fault: FaultMode): boolean {
  return fault !== 'reset' && fault !== 'refuse';
}
