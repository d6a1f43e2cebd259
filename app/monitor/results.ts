/**
 * Where every result lands: writes it into the records (a late outcome never overwrites a newer
 * one), logs it as a MONITORING line, publishes it (at once for event-triggered tests, else after
 * the debounce window) and schedules the cache write. What a URL result sets off next (the IP
 * lookup, the IPv6 check, the transfer test, retests of chained servers) listens to `urlWritten`.
 */
import type { IpInfo, Measurement } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { TransferTest } from '../../shared/domain/transfer';
import type { Clock } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';
import type { DebouncedSaver } from './cache';
import { describe } from './cycle';
import type { FlightResult } from './flights';
import type { IpInfoLookup } from './ipinfo/lookup';
import type { LookupRequest } from './ipinfo/lookups';
import type { Ipv6CheckFinding, Ipv6CheckRequest } from './ipv6/checks';
import { judgeIpv6Fetch } from './policy/ipv6';
import { NOT_READY_MAX_TRIES, NOT_READY_RETRY_MS } from './policy/timing';
import type { StatusPublisher } from './publisher';
import type { ServerRecords } from './records';
import type { ServerDirectory } from './servers';

export interface ResultWriterDeps {
  clock: Clock;
  records: ServerRecords;
  publisher: StatusPublisher;
  saver: DebouncedSaver | null;
  servers: Pick<ServerDirectory, 'get' | 'name'>;
  log: (line: string) => void;
  onListenerError?: ListenerErrorSink;
}

/** A URL result became the server's latest. */
export interface UrlWritten {
  serverId: ServerId;
  /** The server answered. */
  ok: boolean;
  at: number;
  /** It answered after its previous definite result was a failure. */
  recovered: boolean;
  /** An event-triggered test: what follows is delivered at once too. */
  immediate: boolean;
}

/** A URL outcome with the flight that produced it (absent for outcomes no flight ends, e.g. a staged deadline). */
export type UrlResult = Omit<FlightResult, 'flight'> & { flight?: number };

export class ResultWriter {
  readonly urlWritten: Signal<UrlWritten>;
  /** A transfer result became the server's latest (Auto reads the current server's as a trigger). */
  readonly transferWritten: Signal<ServerId>;

  constructor(private readonly deps: ResultWriterDeps) {
    this.urlWritten = new Signal('URL result', deps.onListenerError);
    this.transferWritten = new Signal('transfer result', deps.onListenerError);
  }

  /** Writes a URL result and publishes it; false when it was older than one already written. */
  url(id: ServerId, result: UrlResult, note: string, immediate: boolean): boolean {
    const { records, publisher } = this.deps;
    if (!this.deps.servers.get(id)) return false;
    const applied = records.applyUrlOutcome(id, result.outcome, result.at, result.flight);
    if (!applied.applied) return false;
    this.deps.log(`test ${this.name(id)} (${note}): ${describe(result.outcome)}`);
    this.urlWritten.emit({ serverId: id, ok: result.outcome.ok, at: result.at, recovered: applied.recovered, immediate });
    publisher.changed(id, { definite: true, immediate });
    this.deps.saver?.schedule();
    return true;
  }

  /** A measurement made elsewhere (Auto's probes, TCP, ICMP); stored once. */
  measurement(id: ServerId, measurement: Measurement, immediate: boolean): boolean {
    if (!this.deps.servers.get(id)) return false;
    const applied = this.deps.records.applyMeasurement(id, measurement);
    if (!applied.applied) return false;
    if (measurement.method === 'url') {
      this.urlWritten.emit({ serverId: id, ok: measurement.delayMs !== null, at: measurement.at, recovered: applied.recovered, immediate });
    }
    this.deps.publisher.changed(id, { definite: true, immediate });
    this.deps.saver?.schedule();
    return true;
  }

  notReady(id: ServerId, reason: string, tries: number): void {
    const record = this.deps.records.ensure(id);
    record.notReady = reason;
    record.notReadyTries = tries;
    this.deps.log(`${this.name(id)} not ready (${reason}): retry ${tries}/${NOT_READY_MAX_TRIES} in ${NOT_READY_RETRY_MS / 1000} s`);
    this.deps.publisher.changed(id, { definite: false, immediate: false });
  }

  ipInfoFound(request: LookupRequest, lookup: IpInfoLookup): void {
    const { records, clock } = this.deps;
    const id = request.serverId;
    if (!this.deps.servers.get(id)) return;
    if (!lookup.info) {
      const tried = lookup.attempts.map((a) => `${a.source}: ${a.result}`).join('; ');
      this.deps.log(`IP info of ${this.name(id)}: every service failed (${tried})`);
      return;
    }
    records.setIpInfo(id, lookup.info, clock.now());
    const faster = lookup.answerMs !== null && records.lowerDelay(id, request.measuredAt, Math.round(lookup.answerMs));
    const note = faster ? `; the lookup was faster than the URL test, delay now ${Math.round(lookup.answerMs as number)} ms` : '';
    this.deps.log(`IP info of ${this.name(id)}: ${describeIp(lookup.info)}${note}`);
    this.deps.publisher.changed(id, { definite: true, immediate: request.immediate });
    this.deps.saver?.schedule();
  }

  /** A transfer test ended: its verdict is the server's latest, logged with what was seen. */
  transfer(id: ServerId, test: TransferTest): void {
    if (!this.deps.servers.get(id)) return;
    this.deps.records.setTransfer(id, test);
    this.deps.log(`transfer test of ${this.name(id)}: ${describeTransfer(test)}`);
    this.deps.publisher.changed(id, { definite: true, immediate: false });
    this.deps.saver?.schedule();
    this.transferWritten.emit(id);
  }

  /** An IPv6 check ended: its result is the server's IPv6 knowledge for this run. */
  ipv6Found(request: Ipv6CheckRequest, finding: Ipv6CheckFinding): void {
    const { records, clock } = this.deps;
    const id = request.serverId;
    if (!this.deps.servers.get(id)) return;
    let verdict: { supported: boolean | null; detail: string };
    let via = '';
    if (finding.kind === 'no-address') verdict = { supported: null, detail: finding.reason };
    else {
      const last = records.get(id)?.last;
      const failedMeanwhile = !!last && !last.fromCache && last.delayMs === null && last.at >= finding.startedAt;
      verdict = judgeIpv6Fetch(finding.result, finding.address, failedMeanwhile);
      via = ` (${finding.url}, Host ${finding.hostHeader})`;
    }
    records.setIpv6(id, verdict.supported, verdict.detail, clock.now());
    const word = verdict.supported === null ? 'unknown' : verdict.supported ? 'supported' : 'refused';
    this.deps.log(`IPv6 check of ${this.name(id)}: ${word}, ${verdict.detail}${via}`);
    this.deps.publisher.changed(id, { definite: true, immediate: request.immediate });
    this.deps.saver?.schedule();
  }

  private name(id: ServerId): string {
    return this.deps.servers.name(id);
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function describeTransfer(test: TransferTest): string {
  const speed = test.bytesPerSecond === null ? '' : `${kb(test.bytesPerSecond)}/s`;
  const fragment = test.fragment ? '; TLS ClientHello fragment on' : '';
  switch (test.verdict) {
    case 'ok':
      return `ok, ${kb(test.bytes)} at ${speed} (${test.detail})${fragment}`;
    case 'freezes':
      return `freezes: answers pings but stalls after ${kb(test.bytes)} (${test.detail})${fragment}`;
    case 'throttled':
      return `throttled: ${speed || 'no body'} (${test.detail})${fragment}`;
    case 'failed':
      return `failed (${test.detail})${fragment}`;
  }
}

export function describeIp(info: IpInfo): string {
  const place = [info.city, info.region, info.country ?? info.countryCode].filter(Boolean).join(', ');
  return `${info.ip}${place ? ` in ${place}` : ''}${info.asn ? `, ${info.asn}` : ''}${info.org ? ` ${info.org}` : ''} (from ${info.source})`;
}
