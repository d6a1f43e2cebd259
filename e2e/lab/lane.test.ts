import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Lane, type LaneEnv } from './lane';
import type { Shaping } from './relay-policy';

/** Just enough of a socket for a lane: flow control, writes that may report "full", an end. */
class FakeSocket extends EventEmitter {
  paused = false;
  written: string[] = [];
  ended = false;
  destroyed = false;
  full = false;
  pause() {
    this.paused = true;
    return this;
  }
  resume() {
    this.paused = false;
    return this;
  }
  write(chunk: Buffer) {
    this.written.push(chunk.toString());
    return !this.full;
  }
  end() {
    this.ended = true;
    return this;
  }
}

function makeLane(shaping: Shaping, random = () => 0) {
  const source = new FakeSocket();
  const dest = new FakeSocket();
  let delivered = 0;
  const env: LaneEnv = { now: () => Date.now(), random, shaping: () => shaping, onDelivered: (n) => (delivered += n) };
  const lane = new Lane(source as unknown as Socket, dest as unknown as Socket, env);
  return { lane, source, dest, delivered: () => delivered };
}

describe('Lane', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('delivers each chunk after the latency, in order, then the FIN', () => {
    const { lane, dest, delivered } = makeLane({ latencyMs: 100, jitterMs: 0, bandwidthKbps: null });
    lane.push(Buffer.from('a'));
    vi.advanceTimersByTime(30);
    lane.push(Buffer.from('b'));
    lane.finish();
    vi.advanceTimersByTime(69);
    expect(dest.written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(dest.written).toEqual(['a']);
    vi.advanceTimersByTime(30);
    expect(dest.written).toEqual(['a', 'b']);
    expect(dest.ended).toBe(true);
    expect(delivered()).toBe(2);
  });

  it('keeps order under jitter', () => {
    const draws = [0.99, 0, 0.5, 0.01, 0.7];
    let i = 0;
    const { lane, dest } = makeLane({ latencyMs: 10, jitterMs: 200, bandwidthKbps: null }, () => draws[i++] as number);
    for (const c of ['1', '2', '3', '4', '5']) {
      lane.push(Buffer.from(c));
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(500);
    expect(dest.written).toEqual(['1', '2', '3', '4', '5']);
  });

  it('holds everything while stalled and loses nothing when unstalled', () => {
    const { lane, source, dest } = makeLane({ latencyMs: 0, jitterMs: 0, bandwidthKbps: null });
    lane.stall();
    expect(source.paused).toBe(true);
    lane.push(Buffer.from('held'));
    vi.advanceTimersByTime(10_000);
    expect(dest.written).toEqual([]);
    lane.unstall();
    vi.advanceTimersByTime(0);
    expect(dest.written).toEqual(['held']);
    expect(source.paused).toBe(false);
  });

  it('paces a capped lane at its bandwidth', () => {
    const { lane, dest } = makeLane({ latencyMs: 0, jitterMs: 0, bandwidthKbps: 80 }); // 10 bytes per ms
    lane.push(Buffer.alloc(10_000, 'x')); // 1000 ms of wire time, in 512-byte pieces
    vi.advanceTimersByTime(500);
    const halfway = dest.written.join('').length;
    expect(halfway).toBeGreaterThan(4000);
    expect(halfway).toBeLessThan(5600);
    vi.advanceTimersByTime(501);
    expect(dest.written.join('').length).toBe(10_000);
  });

  it('stops reading from the source when too much is queued, and waits for a full destination to drain', () => {
    const { lane, source, dest } = makeLane({ latencyMs: 1000, jitterMs: 0, bandwidthKbps: null });
    lane.push(Buffer.alloc(600 * 1024));
    expect(source.paused).toBe(true);
    dest.full = true;
    lane.push(Buffer.from('next'));
    vi.advanceTimersByTime(1000);
    expect(dest.written).toHaveLength(1); // the first write reported "full"
    dest.full = false;
    dest.emit('drain');
    vi.advanceTimersByTime(0);
    expect(dest.written).toHaveLength(2);
    expect(source.paused).toBe(false);
  });
});
