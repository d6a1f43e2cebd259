/**
 * One direction of a relayed connection: chunks read from `source` wait until their release time
 * (latency, jitter, bandwidth cap) and are then written to `dest` in order. Holds back the source
 * when too much is queued or the destination is full, and can be stalled (a blackholed existing
 * connection: nothing moves, nothing is lost, as with TCP behind a dead link). Under a delivery
 * budget (the `freeze` fault) it delivers that many bytes in all, then holds everything else,
 * the FIN included, until the budget is lifted.
 */
import type { Socket } from 'node:net';
import { type LaneClock, type Shaping, newLaneClock, pieceSize, scheduleChunk } from './relay-policy';

const HIGH_WATER_BYTES = 512 * 1024;
const LOW_WATER_BYTES = 128 * 1024;

interface Item {
  /** null = the source finished (forward the FIN). */
  data: Buffer | null;
  at: number;
}

export interface LaneEnv {
  now: () => number;
  random: () => number;
  shaping: () => Shaping;
  /** Bytes this lane may deliver over its whole life; null or absent: no limit. */
  budget?: () => number | null;
  onDelivered: (bytes: number) => void;
}

export class Lane {
  private readonly queue: Item[] = [];
  private head = 0;
  private queuedBytes = 0;
  private clock: LaneClock = newLaneClock();
  private timer: NodeJS.Timeout | null = null;
  private stalled = false;
  private waitingForDrain = false;
  private finished = false;
  private delivered = 0;
  /** The budget is spent: the source is held and nothing is written until it grows. */
  private frozen = false;

  constructor(
    private readonly source: Socket,
    private readonly dest: Socket,
    private readonly env: LaneEnv,
  ) {}

  push(chunk: Buffer): void {
    const shaping = this.env.shaping();
    const size = pieceSize(shaping);
    for (let offset = 0; offset < chunk.length; offset += size) {
      const piece = size >= chunk.length ? chunk : chunk.subarray(offset, offset + size);
      const { at, clock } = scheduleChunk(this.clock, this.env.now(), piece.length, shaping, this.env.random);
      this.clock = clock;
      this.queue.push({ data: piece, at });
      this.queuedBytes += piece.length;
    }
    if (this.queuedBytes > HIGH_WATER_BYTES) this.source.pause();
    this.pump();
  }

  /** The source ended: forward its FIN after the data ahead of it, with the same latency. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const { at, clock } = scheduleChunk(this.clock, this.env.now(), 0, { ...this.env.shaping(), bandwidthKbps: null }, this.env.random);
    this.clock = clock;
    this.queue.push({ data: null, at });
    this.pump();
  }

  stall(): void {
    this.stalled = true;
    this.clearTimer();
    this.source.pause();
  }

  unstall(): void {
    if (!this.stalled) return;
    this.stalled = false;
    if (this.queuedBytes < LOW_WATER_BYTES) this.source.resume();
    this.pump();
  }

  /** The budget may have changed: deliver what it now allows. */
  recheck(): void {
    if (this.frozen && this.allowance() > 0) {
      this.frozen = false;
      if (!this.stalled && this.queuedBytes < LOW_WATER_BYTES) this.source.resume();
    }
    this.pump();
  }

  close(): void {
    this.clearTimer();
    this.queue.length = 0;
    this.head = 0;
    this.queuedBytes = 0;
  }

  /** Nothing more moves, and nothing is lost: the connection stays open and silent. */
  private freeze(): void {
    this.frozen = true;
    this.clearTimer();
    this.source.pause();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private allowance(): number {
    const budget = this.env.budget?.() ?? null;
    return budget === null ? Number.POSITIVE_INFINITY : budget - this.delivered;
  }

  private pump(): void {
    if (this.stalled || this.frozen || this.waitingForDrain || this.timer || this.dest.destroyed) return;
    const now = this.env.now();
    while (this.head < this.queue.length) {
      const item = this.queue[this.head] as Item;
      if (item.at > now) break;
      const allowance = this.allowance();
      if (allowance <= 0) {
        this.freeze();
        return;
      }
      if (item.data === null) {
        this.head += 1;
        this.dest.end();
        continue;
      }
      let data = item.data;
      if (data.length > allowance) {
        // Deliver what the budget allows; the rest stays at the head of the queue.
        item.data = data.subarray(allowance);
        data = data.subarray(0, allowance);
      } else {
        this.head += 1;
      }
      this.queuedBytes -= data.length;
      this.delivered += data.length;
      this.env.onDelivered(data.length);
      if (!this.dest.write(data)) {
        this.waitingForDrain = true;
        this.dest.once('drain', () => {
          this.waitingForDrain = false;
          this.pump();
        });
        break;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.allowance() <= 0 && this.head < this.queue.length) {
      this.freeze();
      return;
    }
    if (this.queuedBytes < LOW_WATER_BYTES && !this.finished && !this.stalled && !this.frozen) this.source.resume();
    const next = this.queue[this.head];
    if (next && !this.waitingForDrain) {
      this.timer = setTimeout(
        () => {
          this.timer = null;
          this.pump();
        },
        Math.max(0, Math.ceil(next.at - now)),
      );
    }
  }
}
