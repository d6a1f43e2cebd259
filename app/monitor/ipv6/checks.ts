/**
 * Runs the IPv6 checks (spec/monitor.md, verify_ipv6) in the background after successful URL
 * tests: the test URL's host resolved to its IPv6 address (AAAA), then the test URL fetched once
 * more via that address through the server, with the original Host (and TLS server name). One
 * at a time per server, at most `workers` at once, each with the URL test's timeout and the
 * hung-test guard. Which servers are checked, and what a result means, is ../policy/ipv6.ts.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { MonitorSettings } from '../../../shared/settings';
import { type Clock, sleep } from '../../clock';
import { type Ipv6FetchResult, ipv6HostOf, viaIpv6Address } from '../policy/ipv6';
import { hungGuardMs } from '../policy/timing';
import type { ServerProber } from '../ports';
import { ServerWorkQueue } from '../server-work-queue';
import type { Ipv6Lookup, Ipv6Resolver } from './resolver';

export interface Ipv6CheckRequest {
  serverId: ServerId;
  /** The test URL whose host is checked (the one the successful URL test used). */
  url: string;
  /** Deliver the result at once (the URL test was event-triggered). */
  immediate: boolean;
}

/** What one check found, before the policy judges it. */
export type Ipv6CheckFinding =
  /** No IPv6 address to try: nothing was fetched through the server. */
  | { kind: 'no-address'; reason: string }
  | { kind: 'fetched'; address: string; url: string; hostHeader: string; result: Ipv6FetchResult; startedAt: number };

export interface Ipv6ChecksOptions {
  prober: ServerProber;
  clock: Clock;
  settings: () => MonitorSettings;
  resolve: Ipv6Resolver;
  onResult: (request: Ipv6CheckRequest, finding: Ipv6CheckFinding) => void;
}

/** Bytes of the answer read: only the status matters. */
const BODY_BYTES = 1024;

export class Ipv6Checks {
  private readonly queue: ServerWorkQueue<Ipv6CheckRequest>;

  constructor(private readonly options: Ipv6ChecksOptions) {
    this.queue = new ServerWorkQueue(() => options.settings().workers, async (request, signal) => {
      const finding = await this.check(request, signal);
      if (!signal.aborted) options.onResult(request, finding);
    });
  }

  busy(serverId: ServerId): boolean {
    return this.queue.busy(serverId);
  }

  request(request: Ipv6CheckRequest): void {
    this.queue.add(request);
  }

  /** Drops queued checks and cuts running ones; a cut check reports nothing (it is not a result). */
  stop(): void {
    this.queue.stop();
  }

  private async check(request: Ipv6CheckRequest, signal: AbortSignal): Promise<Ipv6CheckFinding> {
    const { clock, prober } = this.options;
    const target = ipv6HostOf(request.url);
    const timeoutMs = this.options.settings().urlTestTimeoutMs;
    const lookup: Ipv6Lookup =
      target.kind === 'none' ? { address: null, reason: target.reason } : target.kind === 'ipv6' ? { address: target.host } : await this.resolve(target.host, timeoutMs);
    if (lookup.address === null) return { kind: 'no-address', reason: lookup.reason };

    const { url, hostHeader } = viaIpv6Address(request.url, lookup.address);
    const startedAt = clock.now();
    // A fetch can hang where a probe can: the guard ends the wait, as for IP-info lookups.
    const guard = new AbortController();
    const guardMs = hungGuardMs(timeoutMs);
    const abandoned = sleep(clock, guardMs, guard.signal).then(
      (): Ipv6FetchResult => ({ ok: false, error: { kind: 'timeout', message: `no answer within ${guardMs / 1000} s` }, elapsedMs: guardMs }),
    );
    const fetched = prober.fetchThrough(request.serverId, { url, hostHeader, timeoutMs, maxBytes: BODY_BYTES, signal }).then(
      (r): Ipv6FetchResult => (r.ok ? { ok: true, status: r.status, elapsedMs: r.headersMs } : { ok: false, error: r.error, elapsedMs: r.elapsedMs }),
    );
    const result = await Promise.race([fetched, abandoned]).finally(() => guard.abort());
    return { kind: 'fetched', address: lookup.address, url, hostHeader, result, startedAt };
  }

  /** The system resolver cannot be cancelled and may wait on a dead DNS server: bounded here. */
  private async resolve(host: string, timeoutMs: number): Promise<Ipv6Lookup> {
    const guard = new AbortController();
    const late = sleep(this.options.clock, timeoutMs, guard.signal).then(
      (): Ipv6Lookup => ({ address: null, reason: `the IPv6 address of ${host} was not found within ${timeoutMs / 1000} s` }),
    );
    return Promise.race([this.options.resolve(host), late]).finally(() => guard.abort());
  }
}
