/**
 * The monitor's life cycle as the composition root drives it: start (the cache loaded, what the
 * selections reach tested first, then cycles), settings and server-list changes, and stop (every
 * test cut, pending updates delivered, the cache written one last time).
 */
import type { Problem } from '../../shared/domain/problem';
import type { ServerId } from '../../shared/domain/server';
import type { MonitorSettings } from '../../shared/settings';
import type { Logger } from '../log/logger';
import type { JsonFile } from '../storage/json-file';
import type { ActivityTracker } from './activity';
import { type DebouncedSaver, type MonitorCacheData, importCache } from './cache';
import type { EventTests } from './event-tests';
import type { Flights } from './flights';
import type { IpInfoLookups } from './ipinfo/lookups';
import type { Ipv6Checks } from './ipv6/checks';
import type { StatusPublisher } from './publisher';
import type { ServerRecords } from './records';
import type { CycleScheduler } from './scheduler';
import type { ServerDirectory } from './servers';
import type { TestUrls } from './test-urls';
import type { TransferTests } from './transfer-tests';

/** The settings every part reads when it needs them; replaced as a whole on a change. */
export class SettingsCell {
  constructor(private value: MonitorSettings) {}

  readonly get = (): MonitorSettings => this.value;

  set(settings: MonitorSettings): void {
    this.value = settings;
  }
}

export interface LifecycleDeps {
  tag: string;
  logger: Logger;
  cacheFile: JsonFile<MonitorCacheData> | null;
  /** What groups have selected: tested first at start. */
  selections: () => readonly ServerId[];
  settings: SettingsCell;
  servers: ServerDirectory;
  records: ServerRecords;
  urls: TestUrls;
  saver: DebouncedSaver | null;
  activity: ActivityTracker;
  scheduler: CycleScheduler;
  flights: Flights;
  lookups: IpInfoLookups;
  ipv6Checks: Ipv6Checks;
  transfers: TransferTests;
  publisher: StatusPublisher;
  events: Pick<EventTests, 'testNow'>;
  log: (line: string) => void;
}

export class MonitorLifecycle {
  /** What went wrong at start that the user should hear of (an unreadable cache). */
  readonly problems: Problem[] = [];

  constructor(private readonly deps: LifecycleDeps) {}

  /** Loads the cache, tests what selections reach, then runs cycles every `interval`. */
  async start(): Promise<void> {
    const { activity, servers, cacheFile } = this.deps;
    if (activity.running) return;
    this.deps.saver?.reopen();
    servers.refresh(true);
    if (cacheFile) {
      const loaded = await cacheFile.load();
      if (loaded.problem) {
        this.problems.push(loaded.problem);
        this.deps.logger.warn(this.deps.tag, `result cache: ${loaded.problem.detail}`);
      }
      const count = importCache(this.deps.records, loaded.value, servers.present());
      this.deps.urls.use(loaded.value.urlIndex);
      if (count > 0) this.deps.log(`loaded ${count} cached results (shown as from cache until retested)`);
    }
    activity.start();
    const selected = this.deps.selections().filter((id) => servers.get(id));
    if (selected.length > 0) void this.deps.events.testNow(selected, 'start');
    this.deps.scheduler.request('start');
  }

  async stop(): Promise<void> {
    this.deps.activity.stop();
    this.deps.scheduler.stop();
    this.deps.flights.abortAll();
    this.deps.lookups.stop();
    this.deps.ipv6Checks.stop();
    this.deps.transfers.stop();
    this.deps.publisher.flush();
    this.deps.publisher.stop();
    await this.deps.saver?.close();
  }

  setSettings(settings: MonitorSettings): void {
    this.deps.settings.set(settings);
    this.deps.publisher.setWindow(settings.debounceWindowMs);
    this.deps.activity.setIdleTimeout(settings.idleTimeoutMs);
    this.deps.urls.use(this.deps.urls.index);
  }

  /** The server list changed: results of removed servers are dropped. */
  serversChanged(): void {
    this.deps.servers.refresh(true);
    this.deps.saver?.schedule();
  }
}
