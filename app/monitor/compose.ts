/**
 * Builds the monitor's parts in the order they depend on each other: each part gets only parts
 * built before it. What flows the other way (a probe ended, a URL result written, the connection
 * idle or in use again) travels by the parts' signals, subscribed here once everything exists.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { MonitorSettings } from '../../shared/settings';
import type { Clock } from '../clock';
import { listenerErrorsTo } from '../events';
import type { Logger } from '../log/logger';
import type { JsonFile } from '../storage/json-file';
import { ActivityTracker } from './activity';
import { DebouncedSaver, type MonitorCacheData, exportCache } from './cache';
import { EventTests } from './event-tests';
import { Flights } from './flights';
import { AnswerFollowUps } from './follow-ups';
import { IpInfoLookups } from './ipinfo/lookups';
import { Ipv6Checks } from './ipv6/checks';
import { type Ipv6Resolver, systemIpv6Resolver } from './ipv6/resolver';
import { MonitorLifecycle, SettingsCell } from './lifecycle';
import { AutoMeasurements } from './measurements';
import { ObservationExporter } from './observation';
import type { DirectCheck, ServerProber } from './ports';
import { AutoProbes } from './probes';
import { StatusPublisher } from './publisher';
import { ChainReadiness } from './readiness';
import { ServerRecords } from './records';
import { ResultWriter } from './results';
import { CycleScheduler } from './scheduler';
import { SelectionLog } from './selection-log';
import { ServerDirectory } from './servers';
import { NetworkSettling } from './settle';
import { StatusView } from './status-view';
import { TestUrls } from './test-urls';
import { SpeedTests } from './speed-tests';
import { ThroughputTests } from './throughput';
import { DirectTests } from './direct-tests';
import type { IcmpPing } from './icmp';
import { TransferTests } from './transfer-tests';
import { countedProber } from './counted-prober';
import { TestFocusKeeper } from './test-focus';
import { TestTrafficLedger } from './test-traffic';

export interface MonitorOptions {
  prober: ServerProber;
  clock: Clock;
  logger: Logger;
  settings: MonitorSettings;
  /** Where results persist; null runs without a cache. */
  cacheFile: JsonFile<MonitorCacheData> | null;
  /** The current server list, in subscription order. */
  servers: () => readonly Server[];
  /** What groups have selected: Auto's current server, the connected server. */
  selections: () => readonly ServerId[];
  /** Auto's queue of its subscription, in order: the next `transferTestCandidates` after the current server get transfer tests. */
  queue?: () => readonly ServerId[];
  /** A number in [0, 1): the first IP-info service. */
  random?: () => number;
  /** The connectivity check; without it a cycle's failures always count. */
  directCheck?: DirectCheck;
  /** The ICMP echo of the on-request test (default: the system's `ping`). */
  icmp?: IcmpPing;
  /** Where the throughput test downloads `bytes` from. */
  throughputUrl?: (bytes: number) => string;
  /** Whether a server's TLS ClientHello is sent in fragments (its transfer results say so). */
  fragmentOn?: (serverId: ServerId) => boolean;
  throughputTimeoutMs?: number;
  /** Where the IPv6 check finds the test URL host's IPv6 address (default: the system resolver). */
  resolveIpv6?: Ipv6Resolver;
}

/**
 * What a test world may build without (app/monitor/testing/test-monitor.ts): the product always
 * builds every part, so its options carry no such switch.
 */
export interface MonitorComposition {
  /** Exit IP and country looked up after successful tests. */
  ipInfoLookups: boolean;
}

export const FULL_MONITOR: MonitorComposition = { ipInfoLookups: true };

const TAG = 'MONITORING';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export type MonitorParts = ReturnType<typeof composeMonitor>;

export function composeMonitor(options: MonitorOptions, composition: MonitorComposition = FULL_MONITOR) {
  const { clock, logger } = options;
  const onListenerError = listenerErrorsTo(logger, TAG);
  const log = (line: string) => logger.log('info', TAG, line, clock.now());
  const settings = new SettingsCell(options.settings);

  // What is known, and how it is read.
  const records = new ServerRecords();
  const servers = new ServerDirectory(options.servers, records);

  // What testing costs: each kind of test gets a prober that counts its bytes.
  const traffic = new TestTrafficLedger(clock, () => settings.get().testBudgetBytesPerDay, onListenerError);
  const proberFor = (kind: 'delay' | 'transfer' | 'ip-info' | 'speed-test') => countedProber(options.prober, traffic, kind, (id) => servers.get(id));
  const prober = proberFor('delay');
  const focus = new TestFocusKeeper({
    clock,
    settings: settings.get,
    selections: options.selections,
    queue: options.queue ?? (() => []),
    ledger: traffic,
    // Read only once every part exists (the focus is first read by a test).
    onGained: (ids) => {
      for (const id of ids) {
        const last = records.get(id)?.last;
        if (last && last.delayMs !== null && !last.fromCache) transfers.considerAfterAnswer(id, last.at);
      }
    },
  });
  const urls = new TestUrls(settings.get);
  const view = new StatusView(clock, records, servers, settings.get);
  const publisher = new StatusPublisher(clock, settings.get().debounceWindowMs, (id) => view.current(id), (error) =>
    logger.warn(TAG, `a status subscriber threw: ${messageOf(error)}`),
  );
  const saver = options.cacheFile
    ? new DebouncedSaver(
        options.cacheFile,
        clock,
        () => exportCache(records, servers.present(), urls.index, clock.now()),
        (error) => logger.warn(TAG, `the result cache could not be saved: ${messageOf(error)}`),
      )
    : null;
  const writer = new ResultWriter({ clock, records, publisher, saver, servers, log, onListenerError });

  // What runs tests, and when.
  const random = options.random ?? Math.random;
  const activity = new ActivityTracker(clock, settings.get().idleTimeoutMs, onListenerError);
  const settling = new NetworkSettling(clock);
  const flights = new Flights({ prober, clock, servers, settling, onListenerError });
  const lookups = new IpInfoLookups({
    prober: proberFor('ip-info'),
    clock,
    settings: settings.get,
    random,
    onResult: (request, lookup) => writer.ipInfoFound(request, lookup),
  });
  const ipv6Checks = new Ipv6Checks({
    prober,
    clock,
    settings: settings.get,
    resolve: options.resolveIpv6 ?? systemIpv6Resolver,
    onResult: (request, finding) => writer.ipv6Found(request, finding),
  });
  const readiness = new ChainReadiness(prober, servers, flights, records);
  const transfers = new TransferTests({
    prober: proberFor('transfer'),
    clock,
    settings: settings.get,
    flights,
    activity,
    records,
    writer,
    mayTest: focus.mayTransferTest,
    capped: focus.capped,
    readiness: (id) => readiness.of(id),
    fragmentOn: options.fragmentOn,
    onListenerError,
  });
  const scheduler = new CycleScheduler({
    clock,
    flights,
    records,
    settings: settings.get,
    directCheck: options.directCheck,
    servers,
    urls,
    settling,
    activity,
    readiness,
    writer,
    transfers,
    random,
    delayTargets: focus.delayTargets,
    log,
    onListenerError,
  });
  const events = new EventTests({ clock, prober, flights, records, writer, publisher, lookups, settings: settings.get, urls, servers, view, activity, log });
  const followUps = new AnswerFollowUps({
    settings: settings.get,
    records,
    servers,
    activity,
    urls,
    lookups: composition.ipInfoLookups ? lookups : null,
    ipv6Checks,
    transfers,
    events,
    mayLookUp: focus.mayLookUp,
    log,
  });

  // What flows back.
  flights.probeEnded.on(() => transfers.pump());
  flights.probeEnded.on(() => scheduler.probeEnded());
  transfers.ended.on(() => scheduler.probeEnded());
  writer.urlWritten.on(({ serverId }) => scheduler.tested(serverId));
  writer.urlWritten.on((written) => followUps.written(written));
  activity.idled.on(() => {
    log(`no traffic for ${Math.round(settings.get().idleTimeoutMs / 1000)} s: background testing stops until the next connection`);
    scheduler.halt();
    transfers.stop();
  });
  activity.resumed.on(() => {
    log('traffic again: background testing resumes');
    scheduler.request('traffic resumed');
  });

  traffic.capChanged.on((capped) =>
    log(
      capped
        ? `the daily test budget (${settings.get().testBudgetBytesPerDay} bytes) is spent: only delay probes of the current server and Auto's candidates run until the last 24 h fall under it`
        : 'testing is under its daily budget again: every test runs',
    ),
  );

  // The ports the monitor serves.
  return {
    settings,
    traffic,
    focus,
    transfers,
    records,
    transferWritten: writer.transferWritten,
    activity,
    scheduler,
    publisher,
    events,
    view,
    probes: new AutoProbes(clock, settings.get, servers, urls, flights, transfers),
    measurements: new AutoMeasurements(records, view, writer),
    throughput: new ThroughputTests({
      prober: proberFor('transfer'),
      servers,
      records,
      publisher,
      saver,
      view,
      url: options.throughputUrl,
      timeoutMs: options.throughputTimeoutMs,
      now: () => clock.now(),
      log,
    }),
    // The bulk speed test downloads from where the throughput test does.
    speedTests: new SpeedTests({ prober: proberFor('speed-test'), clock, servers, records, publisher, saver, url: options.throughputUrl, log, onListenerError }),
    direct: new DirectTests({ clock, prober, servers, writer, timeoutMs: () => settings.get().urlTestTimeoutMs, icmp: options.icmp, log }),
    selectionLog: new SelectionLog(logger, clock, servers, records),
    observation: new ObservationExporter(clock, records, servers, view, scheduler),
    lifecycle: new MonitorLifecycle({
      tag: TAG,
      logger,
      cacheFile: options.cacheFile,
      selections: options.selections,
      settings,
      servers,
      records,
      urls,
      saver,
      activity,
      scheduler,
      flights,
      lookups,
      ipv6Checks,
      transfers,
      publisher,
      events,
      log,
    }),
  };
}
