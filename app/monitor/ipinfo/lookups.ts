/**
 * Runs IP-info lookups in the background after successful URL tests: one at a time per server,
 * at most `limit` at once overall, each request through the server itself with the URL test's
 * timeout (and the hung-test guard, since a fetch can hang where a probe can).
 */
import type { ServerId } from '../../../shared/domain/server';
import { DEFAULT_IP_INFO_URLS, type IpInfoService, type MonitorSettings } from '../../../shared/settings';
import { type Clock, sleep } from '../../clock';
import { ipInfoPlan } from '../policy/ipinfo-order';
import { hungGuardMs } from '../policy/timing';
import type { FetchThroughResult, ServerProber } from '../ports';
import { type IpInfoLookup, lookupIpInfo } from './lookup';

export interface LookupRequest {
  serverId: ServerId;
  /** The URL result the lookup follows (its time may become the delay). */
  measuredAt: number;
  /** Deliver the result at once (the test was event-triggered). */
  immediate: boolean;
}

export interface IpInfoLookupsOptions {
  prober: ServerProber;
  clock: Clock;
  settings: () => MonitorSettings;
  random: () => number;
  onResult: (request: LookupRequest, lookup: IpInfoLookup) => void;
}

export class IpInfoLookups {
  private running = new Map<ServerId, LookupRequest>();
  private waiting: LookupRequest[] = [];
  private controller = new AbortController();

  constructor(private readonly options: IpInfoLookupsOptions) {}

  /** Whether a lookup for this server is queued or running. */
  busy(serverId: ServerId): boolean {
    return this.running.has(serverId) || this.waiting.some((r) => r.serverId === serverId);
  }

  /** A lookup already queued or running for this server delivers its result at once. */
  hurry(serverId: ServerId): void {
    for (const r of [...this.waiting, ...this.running.values()]) if (r.serverId === serverId) r.immediate = true;
  }

  request(request: LookupRequest): void {
    if (this.busy(request.serverId)) {
      if (request.immediate) this.hurry(request.serverId);
      return;
    }
    this.waiting.push(request);
    this.pump();
  }

  stop(): void {
    this.waiting = [];
    this.controller.abort();
    this.controller = new AbortController();
  }

  private pump(): void {
    const limit = Math.max(1, this.options.settings().workers);
    while (this.running.size < limit && this.waiting.length > 0) {
      const next = this.waiting.shift() as LookupRequest;
      this.running.set(next.serverId, next);
      void this.run(next).finally(() => {
        this.running.delete(next.serverId);
        this.pump();
      });
    }
  }

  private async run(request: LookupRequest): Promise<void> {
    const settings = this.options.settings();
    const urls: Record<IpInfoService, string> = { ...DEFAULT_IP_INFO_URLS, ...settings.ipInfoUrls };
    const plan = ipInfoPlan(settings.ipInfoUrl, urls, this.options.random());
    const signal = this.controller.signal;
    const timeoutMs = settings.urlTestTimeoutMs;
    const fetch = (url: string): Promise<FetchThroughResult> => {
      const guard = new AbortController();
      const guardMs = hungGuardMs(timeoutMs);
      const abandoned = sleep(this.options.clock, guardMs, guard.signal).then(
        (): FetchThroughResult => ({ ok: false, error: { kind: 'timeout', message: `no answer within ${guardMs / 1000} s` }, elapsedMs: guardMs }),
      );
      const answer = this.options.prober.fetchThrough(request.serverId, { url, timeoutMs, maxBytes: 64 * 1024, signal });
      return Promise.race([answer, abandoned]).finally(() => guard.abort());
    };
    const lookup = await lookupIpInfo(plan, fetch, signal);
    if (!signal.aborted) this.options.onResult(request, lookup);
  }
}
