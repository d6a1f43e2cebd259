/**
 * The monitor's own traffic through the servers, by kind of test: per server since start, and in
 * minute buckets over the last 24 h for the last hour and the last day (1,440 buckets at most,
 * whatever the number of tests). It says when the daily cap is reached or left.
 */
import type { ServerId } from '../../shared/domain/server';
import { type ByteCount, type BytesByKind, noBytesByKind, type TestKind, TEST_KINDS, type TestTrafficUsage, totalBytes } from '../../shared/domain/test-traffic';
import type { Clock } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';
import { capReached } from './policy/test-budget';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export class TestTrafficLedger {
  private readonly buckets = new Map<number, BytesByKind>();
  private readonly perServer = new Map<ServerId, BytesByKind>();
  private readonly totals = noBytesByKind();
  private wasCapped = false;
  /** The cap was reached (true) or testing is under it again (false). */
  readonly capChanged: Signal<boolean>;

  constructor(
    private readonly clock: Clock,
    private readonly capBytesPerDay: () => number,
    onListenerError?: ListenerErrorSink,
  ) {
    this.capChanged = new Signal('test traffic cap', onListenerError);
  }

  add(serverId: ServerId, kind: TestKind, bytes: ByteCount): void {
    if (bytes.up === 0 && bytes.down === 0) return;
    const minute = Math.floor(this.clock.now() / MINUTE_MS);
    let bucket = this.buckets.get(minute);
    if (!bucket) {
      bucket = noBytesByKind();
      this.buckets.set(minute, bucket);
      this.prune(minute);
    }
    let server = this.perServer.get(serverId);
    if (!server) {
      server = noBytesByKind();
      this.perServer.set(serverId, server);
    }
    for (const into of [bucket, server, this.totals]) addInto(into[kind], bytes);
    this.checkCap();
  }

  /** Whether the daily cap is reached now. */
  capped(): boolean {
    const cap = this.capBytesPerDay();
    // Without a cap the day's sum is not worth adding up on every test.
    return cap > 0 && capReached(totalBytes(this.since(DAY_MS)), cap);
  }

  /** The cap setting changed, or time passed: says so when the state changed. */
  checkCap(): void {
    const capped = this.capped();
    if (capped === this.wasCapped) return;
    this.wasCapped = capped;
    this.capChanged.emit(capped);
  }

  usage(): TestTrafficUsage {
    return { lastHour: this.since(HOUR_MS), lastDay: this.since(DAY_MS), capBytesPerDay: this.capBytesPerDay(), capped: this.capped() };
  }

  /** Every byte since start, by kind. */
  total(): BytesByKind {
    return copy(this.totals);
  }

  /** A server's bytes since start, by kind. */
  server(id: ServerId): BytesByKind {
    const found = this.perServer.get(id);
    return found ? copy(found) : noBytesByKind();
  }

  /** A removed server's figures go (its share of the windows stays: those bytes were spent). */
  forget(id: ServerId): void {
    this.perServer.delete(id);
  }

  private since(windowMs: number): BytesByKind {
    const from = Math.floor((this.clock.now() - windowMs) / MINUTE_MS);
    const out = noBytesByKind();
    for (const [minute, bucket] of this.buckets) {
      if (minute <= from) continue;
      for (const kind of TEST_KINDS) addInto(out[kind], bucket[kind]);
    }
    return out;
  }

  private prune(nowMinute: number): void {
    const oldest = nowMinute - DAY_MS / MINUTE_MS;
    for (const minute of this.buckets.keys()) if (minute <= oldest) this.buckets.delete(minute);
  }
}

function addInto(into: ByteCount, bytes: ByteCount): void {
  into.up += bytes.up;
  into.down += bytes.down;
}

function copy(byKind: BytesByKind): BytesByKind {
  const out = noBytesByKind();
  for (const kind of TEST_KINDS) addInto(out[kind], byKind[kind]);
  return out;
}
