/**
 * Tests that run because something happened, not because a cycle came round: event-triggered
 * tests (at once, beside the workers, published without debounce) and the staged on-demand test.
 * Both go through Flights, so they join a test of the same server already in the air.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { MonitorSettings } from '../../shared/settings';
import { type Clock, sleep } from '../clock';
import type { ActivityTracker } from './activity';
import type { Flights } from './flights';
import type { IpInfoLookups } from './ipinfo/lookups';
import { planStagedTest } from './policy/staged';
import { FRESH_SELECTION_MS, NOT_READY_MAX_TRIES, NOT_READY_RETRY_MS } from './policy/timing';
import type { ServerProber } from './ports';
import type { StatusPublisher } from './publisher';
import type { ServerRecords } from './records';
import type { ResultWriter } from './results';
import type { ServerDirectory } from './servers';
import { runStagedTest } from './staged-test';
import type { StatusView } from './status-view';
import type { TestUrls } from './test-urls';

/** Why an event-triggered test runs. */
export type TestReason = 'start' | 'member-failed' | 'selection' | 'connected' | 'user' | 'chain-recovered';

export interface EventTestsDeps {
  clock: Clock;
  prober: ServerProber;
  flights: Flights;
  records: ServerRecords;
  writer: ResultWriter;
  publisher: StatusPublisher;
  lookups: Pick<IpInfoLookups, 'hurry'>;
  settings: () => MonitorSettings;
  urls: Pick<TestUrls, 'current'>;
  servers: Pick<ServerDirectory, 'get' | 'list' | 'name'>;
  view: Pick<StatusView, 'status'>;
  /** A wait for readiness ends early once the monitor stops. */
  activity: Pick<ActivityTracker, 'running'>;
  log: (line: string) => void;
}

export class EventTests {
  private staged = new Map<ServerId, Promise<ServerStatus>>();

  constructor(private readonly deps: EventTestsDeps) {}

  /**
   * A selection measured within 15 s is not retested (under load a second ping read 2549 ms for
   * a 59 ms member); servers dialling through a new selection are tested too.
   */
  async testNow(ids: readonly ServerId[], reason: TestReason): Promise<ServerStatus[]> {
    const { clock, records, servers } = this.deps;
    const now = clock.now();
    const wanted = ids.filter((id) => servers.get(id));
    let targets = [...wanted];
    const dependents: ServerId[] = [];
    if (reason === 'selection') {
      targets = wanted.filter((id) => {
        const last = records.get(id)?.last;
        const fresh = last && !last.fromCache && now - last.at < FRESH_SELECTION_MS;
        if (fresh) this.deps.log(`${this.name(id)} selected: measured ${((now - last.at) / 1000).toFixed(1)} s ago, not retested (${FRESH_SELECTION_MS / 1000} s rule)`);
        return !fresh;
      });
      for (const server of servers.list()) {
        if (server.via && wanted.includes(server.via) && !wanted.includes(server.id)) dependents.push(server.id);
      }
    }
    await Promise.all([
      ...targets.map((id) => this.testOne(id, reason)),
      ...dependents.map((id) => this.testOne(id, `${reason}: dials through the new selection`)),
    ]);
    return [...wanted, ...dependents].map((id) => this.deps.view.status(id));
  }

  /** A second request for the same server joins the first. */
  testStaged(serverId: ServerId): Promise<ServerStatus> {
    const existing = this.staged.get(serverId);
    if (existing) return existing;
    const run = this.runStaged(serverId).finally(() => this.staged.delete(serverId));
    this.staged.set(serverId, run);
    return run;
  }

  private async testOne(id: ServerId, reason: string, depth = 0): Promise<void> {
    const { prober, flights, writer, records } = this.deps;
    const server = this.deps.servers.get(id);
    if (!server) return;
    for (let tries = 0; tries < NOT_READY_MAX_TRIES; tries++) {
      const readiness = prober.readiness(id);
      if (readiness.ready) break;
      writer.notReady(id, readiness.reason, tries + 1);
      await sleep(this.deps.clock, NOT_READY_RETRY_MS);
      if (!this.deps.activity.running) return;
    }
    // Only a chained server waits before its probe: anything else starts in this very tick.
    if (server.via) await this.prepareChain(server, reason, depth);
    const result = await flights.probe(id, this.deps.urls.current(), this.deps.settings().urlTestTimeoutMs).promise;
    if (!writer.url(id, result, `event: ${reason}`, true) && records.get(id)?.lastFlight === result.flight) {
      // A cycle test it joined wrote the result first: an event's result still goes out at once.
      this.deps.publisher.changed(id, { definite: true, immediate: true });
      this.deps.lookups.hurry(id);
    }
  }

  /** A chained server is tested after the server it dials through has a result in this run. */
  private async prepareChain(server: Server, reason: string, depth: number): Promise<void> {
    if (!server.via || depth >= 4 || !this.deps.servers.get(server.via)) return;
    const inFlight = this.deps.flights.current(server.via);
    if (inFlight) await inFlight.promise;
    else if (!this.deps.records.get(server.via)?.resultThisRun) await this.testOne(server.via, `${reason}: ${server.name} dials through it`, depth + 1);
  }

  private async runStaged(serverId: ServerId): Promise<ServerStatus> {
    const { records, publisher, writer } = this.deps;
    const server = this.deps.servers.get(serverId);
    if (!server) throw new Error(`no server ${serverId}`);
    const record = records.ensure(serverId);
    const prefix = `staged test of ${server.name}`;
    const readiness = this.deps.prober.readiness(serverId);
    if (!readiness.ready) {
      record.notReady = readiness.reason;
      this.deps.log(`${prefix}: not ready (${readiness.reason}), not tested`);
      publisher.changed(serverId, { definite: false, immediate: true });
      return this.deps.view.status(serverId);
    }
    if (server.via) await this.prepareChain(server, 'staged test', 0);
    const plan = planStagedTest(this.deps.settings().onDemandTimeoutsMs, record.workedThisRun);
    const stages = plan.stagesMs.map((ms) => `${ms / 1000} s`).join(', ');
    this.deps.log(`${prefix}: stages ${stages}${record.workedThisRun ? ' (worked in this run: starts at stage 2, never shown down)' : ''}`);
    record.testing = true;
    publisher.changed(serverId, { definite: false, immediate: true });
    const result = await runStagedTest(serverId, {
      clock: this.deps.clock,
      flights: this.deps.flights,
      url: this.deps.urls.current(),
      plan,
      onDownForNow: () => {
        records.ensure(serverId).downForNow = true;
        publisher.changed(serverId, { definite: false, immediate: true });
      },
      log: (line) => this.deps.log(`${prefix}: ${line}`),
    });
    const current = records.ensure(serverId);
    current.testing = false;
    current.downForNow = false;
    const written = writer.url(serverId, result, `staged test, ${result.attempts} attempt(s)`, true);
    // Already written by a test it joined: still tell subscribers the staged test is over.
    if (!written) publisher.changed(serverId, { definite: true, immediate: true });
    return this.deps.view.status(serverId);
  }

  private name(id: ServerId): string {
    return this.deps.servers.name(id);
  }
}
