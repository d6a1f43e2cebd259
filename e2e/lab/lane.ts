/**
 * One direction of a relayed connection: chunks read from `source` wait until their release time
 * (latency, jitter, bandwidth cap) and are then written to `dest` in order. Holds back the source
 * when too much is queued or the destination is full, and can be stalled (a blackholed existing
 * connection: nothing moves, nothing is lost, as with TCP behind a dead link).
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

  close(): void {
    this.clearTimer();
    this.queue.length = 0;
    this.head = 0;
    this.queuedBytes = 0;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private pump(): void {
    if (this.stalled || this.waitingForDrain || this.timer || this.dest.destroyed) return;
    const now = this.env.now();
    while (this.head < this.queue.length) {
      const item = this.queue[this.head] as Item;
      if (item.at > now) break;
      this.head += 1;
      if (item.data === null) {
        this.dest.end();
        continue;
      }
      this.queuedBytes -= item.data.length;
      this.env.onDelivered(item.data.length);
      if (!this.dest.write(item.data)) {
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
    if (this.queuedBytes < LOW_WATER_BYTES && !this.finished && !this.stalled) this.source.resume();
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
