/**
 * Bytes through the proxy outbound per interval, and apart from them the bytes of the direct
 * outbound (routing), from the core's stats counters. The counters are cumulative and diffed here
 * (policy/traffic-delta.ts), so a failed or late poll loses no bytes: the next sample carries
 * them, with its interval stretched to match.
 */
import type { TrafficSample } from '../../shared/domain/connection';
import type { Clock, TimerHandle } from '../clock';
import { counterDelta, groupShare, sentTowardsServer, type TrafficCounters, trafficDelta } from './policy/traffic-delta';
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
  /**
   * The inbounds the user's programs send into (HTTP, SOCKS5, transparent capture): their uplink,
   * less the direct outbound's, stands in for a proxy uplink the core does not count (Xray 26).
   */
  userInboundTags?: readonly string[];
  /**
   * The server groups beside the main connection, each with the outbounds its bytes are counted
   * on (a counter that stays at zero on one core is outweighed by the other: the larger counts).
   * Their bytes are reported apart, per group, and never as the main connection's.
   */
  groups?: () => readonly GroupCounterTags[];
  /** Told once per run of failed polls (not every 250 ms). */
  onError?: (message: string) => void;
}

export interface GroupCounterTags {
  name: string;
  tags: readonly string[];
}

export const DEFAULT_TRAFFIC_INTERVAL_MS = 250;

export class TrafficMeter {
  private previous: TrafficCounters | null = null;
  private previousDirect: TrafficCounters | null = null;
  private previousUserUp: number | null = null;
  /**
   * The last interval's inbound bytes and whether anything went direct in it, held one interval:
   * a direct connection's CONNECT line can enter the inbound just before its direct bytes move,
   * so the stand-in is only taken once the next interval shows nothing went direct either.
   */
  private held: { userInboundUp: number; directUp: number; directActive: boolean; groupLeft: number } | null = null;
  private previousGroups = new Map<string, TrafficCounters>();
  private directBefore = false;
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
    const { directTag, userInboundTags = [] } = this.options;
    try {
      // One query for all: the core matches the pattern as a substring of every counter name.
      const grouped = (this.options.groups?.() ?? []).length > 0;
      const pattern = userInboundTags.length > 0 ? '>>>traffic>>>' : directTag || grouped ? 'outbound>>>' : `outbound>>>${tag}>>>traffic>>>`;
      const counters = await this.options.source.query(pattern, 1000);
      if (!this.running) return;
      const read = (outbound: string): TrafficCounters => ({
        up: counters.get(`outbound>>>${outbound}>>>traffic>>>uplink`) ?? 0,
        down: counters.get(`outbound>>>${outbound}>>>traffic>>>downlink`) ?? 0,
      });
      const current = read(tag);
      const delta = trafficDelta(this.previous, current);
      const now = this.options.clock.now();
      const sample: TrafficSample = { at: now, intervalMs: now - this.lastAt, upBytes: delta.up, downBytes: delta.down };
      // The direct outbound carries bytes only where routing sends some there; its counter is read either way.
      const direct = read(directTag ?? 'direct');
      const directDelta = trafficDelta(this.previousDirect, direct);
      if (directTag) sample.direct = { upBytes: directDelta.up, downBytes: directDelta.down };
      this.previousDirect = direct;
      const groupUp = this.readGroups(read, sample);
      const directNow = directDelta.up + directDelta.down > 0;
      if (userInboundTags.length > 0) {
        const userUp = userInboundTags.reduce((sum, t) => sum + (counters.get(`inbound>>>${t}>>>traffic>>>uplink`) ?? 0), 0);
        const held = this.held;
        // What the groups carried of the held interval's inbound bytes is theirs, not the server's.
        const share = held ? groupShare(held.userInboundUp - held.directUp, { earlier: held.groupLeft, now: groupUp }) : { groups: 0, left: groupUp };
        // The stand-in comes one interval late (250 ms: nothing beside a 5 s stall threshold).
        sample.upBytes = held
          ? sentTowardsServer({ proxyUp: delta.up, userInboundUp: held.userInboundUp, directUp: held.directUp, directActive: held.directActive || directNow, groupUp: share.groups })
          : delta.up;
        // Direct this interval or the one before it: a late header of a direct connection is not the server's either.
        this.held = { userInboundUp: counterDelta(this.previousUserUp, userUp), directUp: directDelta.up, directActive: directNow || this.directBefore, groupLeft: share.left };
        this.previousUserUp = userUp;
      }
      this.directBefore = directNow;
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

  /** Each group's bytes this interval into `sample.groups`; returns the bytes they all sent. */
  private readGroups(read: (outbound: string) => TrafficCounters, sample: TrafficSample): number {
    const groups = this.options.groups?.() ?? [];
    if (groups.length === 0) return 0;
    const seen = new Map<string, TrafficCounters>();
    let sent = 0;
    sample.groups = {};
    for (const group of groups) {
      const counters = group.tags.map(read);
      const current = { up: Math.max(0, ...counters.map((c) => c.up)), down: Math.max(0, ...counters.map((c) => c.down)) };
      const delta = trafficDelta(this.previousGroups.get(group.name) ?? null, current);
      seen.set(group.name, current);
      sample.groups[group.name] = { upBytes: delta.up, downBytes: delta.down };
      sent += delta.up;
    }
    this.previousGroups = seen;
    return sent;
  }
}
