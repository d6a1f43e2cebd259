/**
 * Bytes through the proxy outbound per interval, and apart from them the bytes of the direct
 * outbound (routing), from the core's stats counters. The counters are cumulative and diffed here
 * (policy/traffic-delta.ts), so a failed or late poll loses no bytes: the next sample carries
 * them, with its interval stretched to match.
 */
import type { TrafficSample } from '../../shared/domain/connection';
import type { Clock, TimerHandle } from '../clock';
import { type TrafficCounters, trafficDelta } from './policy/traffic-delta';
import type { Counters } from './stats-client';

export interface CounterSource {
  query(pattern: string, timeoutMs?: number): Promise<Counters>;
}

export interface TrafficMeterOptions {
  source: CounterSource;
  clock: Clock;
  onSample: (sample: TrafficSample) => void;
  /** How often to read the counters (the tunnel uses 250 ms). */
  intervalMs?: number;
  outboundTag?: string;
  /** The outbound whose bytes are reported apart as `direct` (routing's direct traffic). */
  directTag?: string;
  /** Told once per run of failed polls (not every 250 ms). */
  onError?: (message: string) => void;
}

export const DEFAULT_TRAFFIC_INTERVAL_MS = 250;

export class TrafficMeter {
  private previous: TrafficCounters | null = null;
  private previousDirect: TrafficCounters | null = null;
  private lastAt: number;
  private timer: TimerHandle | null = null;
  private running = false;
  private failing = false;

  constructor(private readonly options: TrafficMeterOptions) {
    this.lastAt = options.clock.now();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastAt = this.options.clock.now();
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = this.options.clock.after(this.options.intervalMs ?? DEFAULT_TRAFFIC_INTERVAL_MS, () => void this.poll());
  }

  private async poll(): Promise<void> {
    const tag = this.options.outboundTag ?? 'proxy';
    const { directTag } = this.options;
    try {
      // One query for both: the core matches the pattern as a substring of every counter name.
      const counters = await this.options.source.query(directTag ? 'outbound>>>' : `outbound>>>${tag}>>>traffic>>>`, 1000);
      if (!this.running) return;
      const read = (outbound: string): TrafficCounters => ({
        up: counters.get(`outbound>>>${outbound}>>>traffic>>>uplink`) ?? 0,
        down: counters.get(`outbound>>>${outbound}>>>traffic>>>downlink`) ?? 0,
      });
      const current = read(tag);
      const delta = trafficDelta(this.previous, current);
      const now = this.options.clock.now();
      const sample: TrafficSample = { at: now, intervalMs: now - this.lastAt, upBytes: delta.up, downBytes: delta.down };
      if (directTag) {
        const direct = read(directTag);
        const directDelta = trafficDelta(this.previousDirect, direct);
        sample.direct = { upBytes: directDelta.up, downBytes: directDelta.down };
        this.previousDirect = direct;
      }
      this.options.onSample(sample);
      this.previous = current;
      this.lastAt = now;
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.options.onError?.(error instanceof Error ? error.message : String(error));
      this.failing = true;
    } finally {
      this.schedule();
    }
  }
}
