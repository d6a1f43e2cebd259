/**
 * What the monitor knows of each server: the last definite result, the rings of measurements,
 * IP info, throughput, and the transient flags of a staged test. Pure bookkeeping, no timers:
 * the runtime decides when to write, this decides what a write means.
 */
import type { IpInfo, Measurement, ProbeError, ProbeOutcome } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { LatestStatus, ServerStatus, ThroughputTestSeen } from '../../shared/domain/status';
import type { SpeedTestResult } from '../../shared/domain/speed-test';
import type { TransferTest } from '../../shared/domain/transfer';
import { clipDetail, ipv6Status, type VerifiedIpv6 } from './policy/ipv6';
import { computeStatistics } from './policy/statistics';
import { HISTORY_LENGTH, RECENT_KEPT } from './policy/timing';

export interface LastResult {
  /** null: the test failed. */
  delayMs: number | null;
  at: number;
  fromCache: boolean;
  error: ProbeError | null;
}

export interface ServerRecord {
  id: ServerId;
  last: LastResult | null;
  /** Some definite URL result was measured in this run (not loaded from the cache). */
  resultThisRun: boolean;
  /** The latest URL result of this run answered. */
  workedThisRun: boolean;
  /** The newest probe flight whose outcome was written (older ones arriving late are ignored). */
  lastFlight: number;
  /** The last RECENT_KEPT measurements, of any method, oldest first. */
  recent: Measurement[];
  /** URL results for the ping-history chart, oldest first. */
  history: Measurement[];
  ipInfo: (IpInfo & { fromCache: boolean; at: number }) | null;
  throughputBps: number | null;
  /** What the on-request download behind `throughputBps` fetched, and when it ended. */
  throughputTest: ThroughputTestSeen | null;
  /** The IPv6 check's last result (verify_ipv6); a declaration is the server's, not kept here. */
  ipv6: VerifiedIpv6 | null;
  /** The latest transfer test (fromCache until the server is tested again in this run). */
  transfer: TransferTest | null;
  /** The latest bulk speed test (fromCache when loaded from the previous run). */
  speedTest: SpeedTestResult | null;
  testing: boolean;
  downForNow: boolean;
  notReady: string | null;
  notReadyTries: number;
}

export interface ApplyResult {
  /** The server answered after its previous definite result was a failure. */
  recovered: boolean;
  /** False when the outcome was older than one already written. */
  applied: boolean;
}

export class ServerRecords {
  private records = new Map<ServerId, ServerRecord>();

  get(id: ServerId): ServerRecord | undefined {
    return this.records.get(id);
  }

  ensure(id: ServerId): ServerRecord {
    let record = this.records.get(id);
    if (!record) {
      record = {
        id,
        last: null,
        resultThisRun: false,
        workedThisRun: false,
        lastFlight: 0,
        recent: [],
        history: [],
        ipInfo: null,
        throughputBps: null,
        throughputTest: null,
        ipv6: null,
        transfer: null,
        speedTest: null,
        testing: false,
        downForNow: false,
        notReady: null,
        notReadyTries: 0,
      };
      this.records.set(id, record);
    }
    return record;
  }

  all(): ServerRecord[] {
    return [...this.records.values()];
  }

  /** Drops servers no longer present (spec/observatory.md: results of removed servers are cleaned up). */
  prune(present: ReadonlySet<ServerId>): ServerId[] {
    const dropped: ServerId[] = [];
    for (const id of this.records.keys()) {
      if (!present.has(id)) {
        this.records.delete(id);
        dropped.push(id);
      }
    }
    return dropped;
  }

  /**
   * Writes a URL test's outcome. `flight` orders outcomes of one server: a late outcome of an
   * older flight never overwrites a newer one (a late failure must not replace a fresh answer).
   */
  applyUrlOutcome(id: ServerId, outcome: ProbeOutcome, at: number, flight?: number): ApplyResult {
    const record = this.ensure(id);
    if (flight !== undefined) {
      if (flight <= record.lastFlight) return { recovered: false, applied: false };
      record.lastFlight = flight;
    }
    const wasFailing = record.last !== null && record.last.delayMs === null;
    record.last = {
      delayMs: outcome.ok ? outcome.delayMs : null,
      at,
      fromCache: false,
      error: outcome.ok ? null : outcome.error,
    };
    record.resultThisRun = true;
    record.workedThisRun = outcome.ok;
    record.downForNow = false;
    record.notReady = null;
    record.notReadyTries = 0;
    const measurement: Measurement = { at, method: 'url', delayMs: outcome.ok ? outcome.delayMs : null };
    if (!outcome.ok) measurement.error = outcome.error.kind;
    this.pushMeasurement(record, measurement);
    return { recovered: wasFailing && outcome.ok, applied: true };
  }

  /**
   * Writes a measurement made elsewhere (Auto's own probes, TCP and ICMP tests). A measurement
   * already stored (same method and time) is not stored twice.
   */
  applyMeasurement(id: ServerId, measurement: Measurement): ApplyResult {
    const record = this.ensure(id);
    const duplicate = record.recent.some((m) => m.at === measurement.at && m.method === measurement.method);
    if (duplicate) return { recovered: false, applied: false };
    if (measurement.method !== 'url') {
      this.pushMeasurement(record, measurement);
      return { recovered: false, applied: true };
    }
    if (record.last && !record.last.fromCache && measurement.at < record.last.at) {
      // Older than the latest result (Auto records a check's results when the check ends): keep
      // it in the history, but the newer result stays the server's latest.
      this.pushMeasurement(record, { ...measurement });
      return { recovered: false, applied: true };
    }
    const outcome: ProbeOutcome =
      measurement.delayMs === null
        ? { ok: false, error: { kind: measurement.error ?? 'unknown', message: 'no answer' } }
        : { ok: true, delayMs: measurement.delayMs };
    return this.applyUrlOutcome(id, outcome, measurement.at);
  }

  /** An IP-info lookup through the server answered faster than its URL test: that time is the delay. */
  lowerDelay(id: ServerId, measuredAt: number, delayMs: number): boolean {
    const record = this.records.get(id);
    if (!record?.last || record.last.at !== measuredAt || record.last.delayMs === null || delayMs >= record.last.delayMs) return false;
    record.last = { ...record.last, delayMs };
    for (const ring of [record.recent, record.history]) {
      const m = ring.find((x) => x.method === 'url' && x.at === measuredAt);
      if (m) m.delayMs = delayMs;
    }
    return true;
  }

  setIpInfo(id: ServerId, info: IpInfo, at: number): void {
    this.ensure(id).ipInfo = { ...info, fromCache: false, at };
  }

  setIpv6(id: ServerId, supported: boolean | null, detail: string, at: number): void {
    this.ensure(id).ipv6 = { supported, detail: clipDetail(detail), at, fromCache: false };
  }

  setTransfer(id: ServerId, test: TransferTest): void {
    this.ensure(id).transfer = { ...test };
  }

  setThroughput(id: ServerId, bytesPerSecond: number, test: ThroughputTestSeen | null = null): void {
    const record = this.ensure(id);
    record.throughputBps = bytesPerSecond;
    record.throughputTest = test;
  }

  /** A speed test's result; a measured speed is also the server's throughput (Auto's queue orders unscored servers by it). */
  setSpeedTest(id: ServerId, result: SpeedTestResult): void {
    const record = this.ensure(id);
    record.speedTest = { ...result };
    if (result.bytesPerSecond !== null) record.throughputBps = result.bytesPerSecond;
  }

  /** Measurements of `method`, oldest first: the last 5 (`recent`) or the long URL ring. */
  history(id: ServerId): Measurement[] {
    return [...(this.records.get(id)?.history ?? [])];
  }

  /** `declaredIpv6`: the server's own declaration (ParsedServer.ipv6), which wins over a verification. */
  status(id: ServerId, statisticsSince: number, declaredIpv6?: boolean): ServerStatus {
    const record = this.records.get(id);
    return {
      ...this.latest(id, declaredIpv6),
      statistics: computeStatistics(record?.history ?? [], statisticsSince),
      recent: (record?.recent ?? []).map((m) => ({ ...m })),
    };
  }

  /**
   * What reachability reads of a server (its last measurements and IP info), without the status's
   * statistics: its view reads this for every server whenever the data has changed.
   */
  observed(id: ServerId): Pick<ServerStatus, 'recent' | 'ipInfo'> {
    const record = this.records.get(id);
    return { recent: (record?.recent ?? []).map((m) => ({ ...m })), ipInfo: record?.ipInfo ? { ...record.ipInfo } : null };
  }

  /**
   * The status without its statistics and last measurements: what a list row shows. The window's
   * first snapshot takes this for every server, so it skips the work those two cost per server.
   */
  latest(id: ServerId, declaredIpv6?: boolean): LatestStatus {
    const record = this.records.get(id);
    const last = record?.last ?? null;
    return {
      serverId: id,
      delayMs: last?.delayMs ?? null,
      testedAt: last?.at ?? null,
      fromCache: last?.fromCache ?? false,
      error: last?.error ?? null,
      testing: record?.testing ?? false,
      downForNow: record?.downForNow ?? false,
      notReady: record?.notReady ?? null,
      ipInfo: record?.ipInfo ? { ...record.ipInfo } : null,
      throughputBps: record?.throughputBps ?? null,
      throughputTest: record?.throughputTest ? { ...record.throughputTest } : null,
      reachability: null,
      ipv6: ipv6Status(declaredIpv6, record?.ipv6 ?? null),
      transfer: record?.transfer ? { ...record.transfer } : null,
      speedTest: record?.speedTest ? { ...record.speedTest } : null,
    };
  }

  private pushMeasurement(record: ServerRecord, measurement: Measurement): void {
    record.recent.push(measurement);
    record.recent.sort((a, b) => a.at - b.at);
    if (record.recent.length > RECENT_KEPT) record.recent.splice(0, record.recent.length - RECENT_KEPT);
    if (measurement.method === 'url') {
      record.history.push({ ...measurement });
      if (record.history.length > HISTORY_LENGTH) record.history.splice(0, record.history.length - HISTORY_LENGTH);
    }
  }
}
