/**
 * The monitor's results on disk (`<dataDir>/monitor-cache.json`), read at start so groups can
 * choose and the UI can show pings and countries before any fresh test finishes. Everything
 * loaded is marked "from cache" until the server is retested (results) or an IP lookup succeeds
 * in this run (IP info). A corrupt file never blocks start-up: JsonFile sets it aside and the
 * monitor starts empty, reporting the problem. An IPv6 check's result is kept too, "from cache"
 * until the server is checked again in this run.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { PROBE_FAILURES, PROBE_METHODS } from '../../shared/domain/measurement';
import { TRANSFER_VERDICTS } from '../../shared/domain/transfer';
import type { ServerId } from '../../shared/domain/server';
import type { Clock, TimerHandle } from '../clock';
import { FIRST_FORMAT } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';
import { HISTORY_LENGTH, RECENT_KEPT } from './policy/timing';
import type { ServerRecords } from './records';

const measurementSchema = z.object({
  at: z.number(),
  method: z.enum(PROBE_METHODS),
  delayMs: z.number().nonnegative().nullable(),
  error: z.enum(PROBE_FAILURES).optional(),
});

const ipInfoSchema = z.object({
  ip: z.string().min(1).max(64),
  countryCode: z.string().max(8).optional(),
  country: z.string().max(200).optional(),
  region: z.string().max(200).optional(),
  city: z.string().max(200).optional(),
  asn: z.string().max(32).optional(),
  org: z.string().max(200).optional(),
  source: z.string().max(100),
  at: z.number(),
});

const ipv6Schema = z.object({
  supported: z.boolean().nullable(),
  detail: z.string().max(2000),
  at: z.number(),
});

const count = z.number().int().nonnegative();
const transferSchema = z.object({
  verdict: z.enum(TRANSFER_VERDICTS),
  at: z.number(),
  bytes: count,
  expectedBytes: count,
  bytesPerSecond: count.nullable(),
  fragment: z.boolean(),
  detail: z.string().max(2000),
});

const entrySchema = z.object({
  last: z
    .object({
      delayMs: z.number().nonnegative().nullable(),
      at: z.number(),
      error: z.object({ kind: z.enum(PROBE_FAILURES), message: z.string().max(2000) }).nullable(),
    })
    .nullable(),
  recent: z.array(measurementSchema).max(100),
  history: z.array(measurementSchema).max(HISTORY_LENGTH),
  ipInfo: ipInfoSchema.nullable(),
  throughputBps: z.number().nonnegative().nullable(),
  /** What that download fetched and when (absent in caches written before it was kept). */
  throughputTest: z.object({ bytes: z.number().int().nonnegative(), at: z.number() }).nullable().default(null),
  /** The IPv6 check's result (absent in caches written before verify_ipv6 existed). */
  ipv6: ipv6Schema.nullable().default(null),
  /** The latest transfer test (absent in caches written before it existed). */
  transfer: transferSchema.nullable().default(null),
  /** The latest bulk speed test (absent in caches written before it existed). */
  speedTest: z
    .object({ at: z.number(), bytes: count, bytesPerSecond: count.nullable(), error: z.string().max(2000).nullable() })
    .nullable()
    .default(null),
});

export const monitorCacheSchema = z.object({
  version: z.literal(1),
  savedAt: z.number(),
  /** Index of the test URL that last worked. */
  urlIndex: z.number().int().min(0).default(0),
  servers: z.record(z.string(), entrySchema),
});
export type MonitorCacheData = z.infer<typeof monitorCacheSchema>;

export const CACHE_FILE_NAME = 'monitor-cache.json';

export function emptyMonitorCache(): MonitorCacheData {
  return { version: 1, savedAt: 0, urlIndex: 0, servers: {} };
}

/** `problems`: where a failed save is put for the user. */
export function monitorCacheFile(dataDir: string, problems?: ProblemSink): JsonFile<MonitorCacheData> {
  // 0600: exit addresses and which servers a user has are nobody else's business on a shared machine.
  return new JsonFile({ path: join(dataDir, CACHE_FILE_NAME), schema: monitorCacheSchema, format: FIRST_FORMAT, fallback: emptyMonitorCache, mode: 0o600, problems });
}

/** Puts loaded results into the records, every one marked from cache. */
export function importCache(records: ServerRecords, data: MonitorCacheData, present: ReadonlySet<ServerId>): number {
  let loaded = 0;
  for (const [id, entry] of Object.entries(data.servers)) {
    if (!present.has(id)) continue;
    const record = records.ensure(id);
    record.last = entry.last ? { ...entry.last, fromCache: true } : null;
    // A cache written when the last 5 were kept per method holds more: the last 5 of them count.
    record.recent = entry.recent.slice(-RECENT_KEPT).map((m) => ({ ...m }));
    record.history = entry.history.map((m) => ({ ...m }));
    record.ipInfo = entry.ipInfo ? { ...entry.ipInfo, fromCache: true } : null;
    record.throughputBps = entry.throughputBps;
    record.throughputTest = entry.throughputTest ? { ...entry.throughputTest } : null;
    record.ipv6 = entry.ipv6 ? { ...entry.ipv6, fromCache: true } : null;
    record.transfer = entry.transfer ? { ...entry.transfer, fromCache: true } : null;
    record.speedTest = entry.speedTest ? { ...entry.speedTest, fromCache: true } : null;
    loaded++;
  }
  return loaded;
}

export function exportCache(records: ServerRecords, present: ReadonlySet<ServerId>, urlIndex: number, now: number): MonitorCacheData {
  const servers: MonitorCacheData['servers'] = {};
  for (const record of records.all()) {
    if (!present.has(record.id)) continue;
    if (!record.last && !record.ipInfo && record.recent.length === 0 && record.throughputBps === null && !record.ipv6 && !record.transfer && !record.speedTest) continue;
    const ipInfo = record.ipInfo ? (({ fromCache: _fromCache, ...rest }) => rest)(record.ipInfo) : null;
    servers[record.id] = {
      last: record.last ? { delayMs: record.last.delayMs, at: record.last.at, error: record.last.error } : null,
      recent: record.recent.map((m) => ({ ...m })),
      history: record.history.map((m) => ({ ...m })),
      ipInfo,
      throughputBps: record.throughputBps,
      throughputTest: record.throughputTest ? { ...record.throughputTest } : null,
      ipv6: record.ipv6 ? { supported: record.ipv6.supported, detail: record.ipv6.detail, at: record.ipv6.at } : null,
      transfer: record.transfer ? (({ fromCache: _fromCache, ...rest }) => rest)(record.transfer) : null,
      speedTest: record.speedTest ? (({ fromCache: _fromCache, ...rest }) => rest)(record.speedTest) : null,
    };
  }
  return { version: 1, savedAt: now, urlIndex, servers };
}

/** Saves at most once per `delayMs`, so a burst of results is one write. */
export class DebouncedSaver {
  private timer: TimerHandle | null = null;
  private lastSave: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly file: JsonFile<MonitorCacheData>,
    private readonly clock: Clock,
    private readonly build: () => MonitorCacheData,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = 2000,
  ) {}

  schedule(): void {
    if (this.closed) return;
    this.timer ??= this.clock.after(this.delayMs, () => {
      this.timer = null;
      void this.saveNow();
    });
  }

  /** Writes what is pending and takes no more saves (shutdown: a late result must not write after it). */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  reopen(): void {
    this.closed = false;
  }

  /** Writes now if a save is pending, and waits for the write. */
  async flush(): Promise<void> {
    if (this.timer) {
      this.timer.cancel();
      this.timer = null;
      await this.saveNow();
    }
    await this.lastSave;
  }

  private saveNow(): Promise<void> {
    this.lastSave = this.file.save(this.build()).catch((error: unknown) => {
      this.onError(error);
    });
    return this.lastSave;
  }
}
