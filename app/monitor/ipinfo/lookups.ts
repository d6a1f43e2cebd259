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
import { ServerWorkQueue } from '../server-work-queue';
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
  private readonly queue: ServerWorkQueue<LookupRequest>;

  constructor(private readonly options: IpInfoLookupsOptions) {
    this.queue = new ServerWorkQueue(() => options.settings().workers, (request, signal) => this.run(request, signal));
  }

  /** Whether a lookup for this server is queued or running. */
  busy(serverId: ServerId): boolean {
    return this.queue.busy(serverId);
  }

  /** A lookup already queued or running for this server delivers its result at once. */
  hurry(serverId: ServerId): void {
    for (const r of this.queue.pending()) if (r.serverId === serverId) r.immediate = true;
  }

  request(request: LookupRequest): void {
    if (!this.queue.add(request) && request.immediate) this.hurry(request.serverId);
  }

  stop(): void {
    this.queue.stop();
  }

  private async run(request: LookupRequest, signal: AbortSignal): Promise<void> {
    const settings = this.options.settings();
    const urls: Record<IpInfoService, string> = { ...DEFAULT_IP_INFO_URLS, ...settings.ipInfoUrls };
    const plan = ipInfoPlan(settings.ipInfoUrl, urls, this.options.random());
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
