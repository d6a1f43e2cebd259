import { describe, expect, it } from 'vitest';
import {
  FAULT_MODES,
  type FaultMode,
  type FaultState,
  USER_ADDRESS,
  USER_ADDRESS_V6,
  deliveryBudget,
  flapIsDown,
  newLaneClock,
  nextFlapChange,
  normalizeAddress,
  pieceSize,
  scheduleChunk,
  scheduleDatagram,
  shapingFor,
  udpPortOpen,
  verdictFor,
} from './relay-policy';

const state = (fault: FaultMode, extra: Partial<FaultState> = {}): FaultState => ({
  fault,
  latencyMs: 0,
  jitterMs: 0,
  periodMs: 1000,
  bandwidthKbps: 256,
  afterBytes: 16_384,
  bytesPerSecond: 12_288,
  since: 0,
  ...extra,
});

const OTHER_EXIT = '127.0.0.15';

describe('verdictFor: what a connection meets', () => {
  it.each([
    // fault, source, offline, now, verdict
    ['none', USER_ADDRESS, false, 0, 'pass'],
    ['none', OTHER_EXIT, false, 0, 'pass'],
    ['blackhole', USER_ADDRESS, false, 0, 'blackhole'],
    ['blackhole', OTHER_EXIT, false, 0, 'blackhole'],
    ['reset', USER_ADDRESS, false, 0, 'reset'],
    ['reset', OTHER_EXIT, true, 0, 'reset'],
    ['refuse', USER_ADDRESS, false, 0, 'drop'],
    ['slow', USER_ADDRESS, false, 0, 'pass'],
    // freeze and throttle accept and forward: their harm is in what the lanes deliver
    ['freeze', USER_ADDRESS, false, 0, 'pass'],
    ['throttle', OTHER_EXIT, false, 0, 'pass'],
    ['freeze', USER_ADDRESS, true, 0, 'blackhole'],
    ['blocked-here', USER_ADDRESS, false, 0, 'blackhole'],
    ['blocked-here', `::ffff:${USER_ADDRESS}`, false, 0, 'blackhole'],
    ['blocked-here', OTHER_EXIT, false, 0, 'pass'],
    // flap starts down, then alternates every period
    ['flap', USER_ADDRESS, false, 0, 'blackhole'],
    ['flap', USER_ADDRESS, false, 999, 'blackhole'],
    ['flap', USER_ADDRESS, false, 1000, 'pass'],
    ['flap', OTHER_EXIT, false, 1500, 'pass'],
    ['flap', OTHER_EXIT, false, 2000, 'blackhole'],
    // the user's network being offline swallows the user's connections, not other sources'
    ['none', USER_ADDRESS, true, 0, 'blackhole'],
    ['none', OTHER_EXIT, true, 0, 'pass'],
    ['blocked-here', OTHER_EXIT, true, 0, 'pass'],
    ['flap', USER_ADDRESS, true, 1500, 'blackhole'],
    // the user over IPv6 loopback (the target's ::1 listener) is the user too
    ['none', USER_ADDRESS_V6, true, 0, 'blackhole'],
    ['none', USER_ADDRESS_V6, false, 0, 'pass'],
    ['blocked-here', USER_ADDRESS_V6, false, 0, 'blackhole'],
  ] as const)('%s from %s (offline %s) at %d ms: %s', (fault, source, offline, now, verdict) => {
    expect(verdictFor(state(fault), source, offline, now)).toBe(verdict);
  });
});

describe('flap phases', () => {
  it('counts phases from when the flap was set', () => {
    const s = { periodMs: 500, since: 10_000 };
    expect(flapIsDown(s, 10_000)).toBe(true);
    expect(flapIsDown(s, 10_499)).toBe(true);
    expect(flapIsDown(s, 10_500)).toBe(false);
    expect(flapIsDown(s, 11_000)).toBe(true);
    expect(nextFlapChange(s, 10_000)).toBe(10_500);
    expect(nextFlapChange(s, 10_700)).toBe(11_000);
  });
});

describe('scheduleChunk', () => {
  const never = () => 0;

  it('adds the latency to each chunk', () => {
    const { at } = scheduleChunk(newLaneClock(), 100, 1000, { latencyMs: 50, jitterMs: 0, bandwidthKbps: null }, never);
    expect(at).toBe(150);
  });

  it('adds 0..jitter on top and never lets a later chunk overtake an earlier one', () => {
    const draws = [0.9, 0.0, 0.5, 0.1];
    let i = 0;
    const random = () => draws[i++ % draws.length] as number;
    let clock = newLaneClock();
    const times: number[] = [];
    for (let k = 0; k < 4; k += 1) {
      const r = scheduleChunk(clock, k, 10, { latencyMs: 20, jitterMs: 100, bandwidthKbps: null }, random);
      clock = r.clock;
      times.push(r.at);
    }
    expect(times[0]).toBeCloseTo(110); // 0 + 20 + 90
    expect(times.every((t, k) => k === 0 || t >= (times[k - 1] as number))).toBe(true);
    expect(times[1]).toBeCloseTo(110); // would be 21, kept behind the first
    expect(times[2]).toBeCloseTo(110); // 2 + 20 + 50 = 72, kept behind
  });

  it('spaces chunks by their serialisation time under a bandwidth cap', () => {
    const shaping = { latencyMs: 0, jitterMs: 0, bandwidthKbps: 1000 }; // 1000 bits per ms
    let clock = newLaneClock();
    const times: number[] = [];
    for (let k = 0; k < 3; k += 1) {
      const r = scheduleChunk(clock, 0, 1250, shaping, never); // 10 000 bits = 10 ms each
      clock = r.clock;
      times.push(r.at);
    }
    expect(times).toEqual([10, 20, 30]);
  });

  it('lets an idle capped wire start fresh instead of banking credit', () => {
    const shaping = { latencyMs: 5, jitterMs: 0, bandwidthKbps: 1000 };
    const first = scheduleChunk(newLaneClock(), 0, 1250, shaping, never);
    const later = scheduleChunk(first.clock, 1000, 1250, shaping, never);
    expect(later.at).toBe(1000 + 10 + 5);
  });
});

describe('shaping', () => {
  it('caps bandwidth only under the slow fault (default 256 kbps), keeping latency in every mode', () => {
    expect(shapingFor(state('slow', { latencyMs: 30 }))).toEqual({ latencyMs: 30, jitterMs: 0, bandwidthKbps: 256 });
    expect(shapingFor(state('none', { latencyMs: 30 })).bandwidthKbps).toBeNull();
    expect(shapingFor(state('flap', { latencyMs: 30 })).latencyMs).toBe(30);
  });

  it('throttle caps at bytesPerSecond, expressed on the wire in kbps', () => {
    expect(shapingFor(state('throttle', { bytesPerSecond: 12_000 })).bandwidthKbps).toBe(96);
    expect(shapingFor(state('freeze')).bandwidthKbps).toBeNull();
  });

  it('freeze alone limits what a connection delivers, to afterBytes each way', () => {
    expect(deliveryBudget(state('freeze', { afterBytes: 16_384 }))).toBe(16_384);
    expect(deliveryBudget(state('freeze', { afterBytes: 0 }))).toBe(0);
    for (const fault of ['none', 'slow', 'throttle', 'flap'] as const) expect(deliveryBudget(state(fault))).toBeNull();
  });

  it('cuts reads into ~20 ms pieces under a cap, no smaller than 512 bytes', () => {
    expect(pieceSize({ latencyMs: 0, jitterMs: 0, bandwidthKbps: null })).toBe(Number.POSITIVE_INFINITY);
    expect(pieceSize({ latencyMs: 0, jitterMs: 0, bandwidthKbps: 8000 })).toBe(20_000);
    expect(pieceSize({ latencyMs: 0, jitterMs: 0, bandwidthKbps: 64 })).toBe(512);
  });

  it('normalises IPv4-mapped addresses', () => {
    expect(normalizeAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeAddress(undefined)).toBe('');
  });
});

describe('scheduleDatagram: a datagram is delivered whole, late, or not at all', () => {
  const never = () => 0;
  const free = { latencyMs: 20, jitterMs: 0, bandwidthKbps: null };

  it('delays each datagram by the latency, like a chunk', () => {
    expect(scheduleDatagram(newLaneClock(), 100, 1200, 0, free, null, never)?.at).toBe(120);
  });

  it('keeps the order of datagrams under jitter', () => {
    const draws = [0.9, 0];
    let i = 0;
    let clock = newLaneClock();
    const times: number[] = [];
    for (let k = 0; k < 2; k += 1) {
      const r = scheduleDatagram(clock, k, 100, 0, { latencyMs: 0, jitterMs: 100, bandwidthKbps: null }, null, () => draws[i++] as number);
      clock = r!.clock;
      times.push(r!.at);
    }
    expect(times[1]).toBeGreaterThanOrEqual(times[0]!);
  });

  it.each([
    // delivered so far, datagram bytes, budget, delivered?
    [0, 1200, null, true],
    [15_000, 1200, 16_384, true],
    [15_500, 1200, 16_384, false], // would cross the freeze: dropped whole, never cut
    [16_384, 1, 16_384, false],
    [0, 1, 0, false],
  ] as const)('freeze: %d bytes delivered, a %d-byte datagram, budget %s: delivered %s', (delivered, bytes, budget, ok) => {
    expect(scheduleDatagram(newLaneClock(), 0, bytes, delivered, free, budget, never) !== null).toBe(ok);
  });

  it('tail-drops what would wait longer than the queue limit for a capped wire, leaving the clock as it was', () => {
    const capped = { latencyMs: 0, jitterMs: 0, bandwidthKbps: 100 }; // 100 bits per ms: 1250 bytes = 100 ms
    let clock = newLaneClock();
    const fates: (number | null)[] = [];
    for (let k = 0; k < 8; k += 1) {
      const r = scheduleDatagram(clock, 0, 1250, 0, capped, null, never, 500);
      if (r) clock = r.clock;
      fates.push(r ? r.at : null);
    }
    // 100, 200, … 600 ms: the seventh would start after 600 ms of queue, more than 500
    expect(fates).toEqual([100, 200, 300, 400, 500, 600, null, null]);
    expect(clock.wireFreeAt).toBe(600);
    // once the queue drains, datagrams pass again
    expect(scheduleDatagram(clock, 200, 1250, 0, capped, null, never, 500)?.at).toBe(700);
  });
});

describe('udpPortOpen', () => {
  it.each(FAULT_MODES.map((f) => [f, f !== 'reset' && f !== 'refuse'] as const))('%s: port open %s', (fault, open) => {
    expect(udpPortOpen(fault)).toBe(open);
  });
});
