/**
 * What a server answering its URL test sets off (spec/monitor.md "What is tested"): the IP lookup
 * when it has no IP info of this run, the IPv6 check once a run (verify_ipv6) unless its
 * subscription declares it, the transfer test when one is due, and, when it works again after
 * failing, retests of the servers that dial through it.
 */
import type { ServerId } from '../../shared/domain/server';
import type { MonitorSettings } from '../../shared/settings';
import type { ActivityTracker } from './activity';
import type { EventTests } from './event-tests';
import type { IpInfoLookups } from './ipinfo/lookups';
import type { Ipv6Checks } from './ipv6/checks';
import { needsIpv6Check } from './policy/ipv6';
import type { ServerRecords } from './records';
import type { UrlWritten } from './results';
import type { ServerDirectory } from './servers';
import type { TestUrls } from './test-urls';
import type { TransferTests } from './transfer-tests';

export interface FollowUpsDeps {
  settings: () => MonitorSettings;
  records: Pick<ServerRecords, 'get'>;
  servers: Pick<ServerDirectory, 'get' | 'list' | 'name'>;
  activity: Pick<ActivityTracker, 'running'>;
  urls: Pick<TestUrls, 'current'>;
  /** Null: no IP lookups (sweep benchmarks). */
  lookups: Pick<IpInfoLookups, 'request'> | null;
  ipv6Checks: Pick<Ipv6Checks, 'busy' | 'request'>;
  transfers: Pick<TransferTests, 'considerAfterAnswer'>;
  events: Pick<EventTests, 'testNow'>;
  /** IP-info lookups and IPv6 checks may run (not at the daily test budget's cap). */
  mayLookUp?: () => boolean;
  log: (line: string) => void;
}

export class AnswerFollowUps {
  constructor(private readonly deps: FollowUpsDeps) {}

  /** A URL result was written; only an answer sets anything off. */
  written({ serverId, ok, at, recovered, immediate }: UrlWritten): void {
    if (!ok) return;
    const info = this.deps.records.get(serverId)?.ipInfo;
    const mayLookUp = this.deps.mayLookUp?.() ?? true;
    if (mayLookUp && (!info || info.fromCache)) this.deps.lookups?.request({ serverId, measuredAt: at, immediate });
    if (mayLookUp) this.considerIpv6(serverId, immediate);
    this.deps.transfers.considerAfterAnswer(serverId, at);
    if (recovered) this.retestChained(serverId);
  }

  /** verify_ipv6: once a run, after a successful URL test, unless the subscription declares it. */
  private considerIpv6(id: ServerId, immediate: boolean): void {
    const { servers, ipv6Checks, records } = this.deps;
    const server = servers.get(id);
    if (!server || !this.deps.activity.running || ipv6Checks.busy(id)) return;
    if (!needsIpv6Check(this.deps.settings().verifyIpv6, server.ipv6, records.get(id)?.ipv6 ?? null)) return;
    ipv6Checks.request({ serverId: id, url: this.deps.urls.current(), immediate });
  }

  private retestChained(id: ServerId): void {
    const chained = this.deps.servers.list().filter((s) => s.via === id).map((s) => s.id);
    if (chained.length === 0) return;
    this.deps.log(`${this.deps.servers.name(id)} works again after failing: retesting ${chained.length} server(s) chained through it`);
    void this.deps.events.testNow(chained, 'chain-recovered');
  }
}
