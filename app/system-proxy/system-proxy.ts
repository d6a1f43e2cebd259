import { unlink } from 'node:fs/promises';
import { z } from 'zod';
import type { Logger } from '../log/logger';
import { FIRST_FORMAT } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';
import { BACKEND_IDS, type BackendId, type ProxyBackend } from './backend';
import type { CommandRunner } from './command';
import { type ProxyTarget, proxyTargetSchema } from './target';

const TAG = 'SYSPROXY';

/**
 * What was there before the app changed anything, written before the first change: if this file
 * exists when the app starts, the last run ended without putting the user's settings back (a crash,
 * a power cut, a kill) and the start-up restores them first.
 */
const savedStateSchema = z
  .object({
    version: z.literal(1),
    savedAt: z.number(),
    applied: proxyTargetSchema,
    entries: z.array(z.object({ backend: z.enum(BACKEND_IDS), previous: z.unknown() }).strict()).max(BACKEND_IDS.length),
  })
  .strict();
type SavedState = z.infer<typeof savedStateSchema>;

export interface ApplyReport {
  applied: BackendId[];
  failed: { backend: BackendId; error: string }[];
}

export interface RestoreSummary {
  restored: string[];
  leftAlone: string[];
  warnings: string[];
  failed: { backend: BackendId; error: string }[];
}

export interface SystemProxyOptions {
  /** The places this OS keeps proxy settings (see detect.ts). */
  backends: readonly ProxyBackend<unknown>[];
  run: CommandRunner;
  /** The saved-previous-settings file in the data folder. */
  statePath: string;
  logger: Logger;
  now?: () => number;
  /** Where a failed save of the saved-previous-settings file is put for the user. */
  problems?: ProblemSink;
}

/**
 * Points the operating system's proxy at the app and puts the user's own settings back: on
 * disconnect, on quit, and at the next start after a crash. Operations run one at a time in call
 * order, so a quick connect–disconnect–connect cannot interleave reads and writes.
 */
export class SystemProxy {
  private readonly backends: Map<BackendId, ProxyBackend<unknown>>;
  private readonly file: JsonFile<SavedState | null>;
  private readonly run: CommandRunner;
  private readonly logger: Logger;
  private readonly now: () => number;
  /** undefined = not loaded yet; null = nothing of ours is applied. */
  private state: SavedState | null | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: SystemProxyOptions) {
    this.backends = new Map(options.backends.map((b) => [b.id, b]));
    this.run = options.run;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.file = new JsonFile<SavedState | null>({
      path: options.statePath,
      schema: savedStateSchema.nullable(),
      format: FIRST_FORMAT,
      fallback: () => null,
      mode: 0o600,
      problems: options.problems,
    });
  }

  get statePath(): string {
    return this.file.path;
  }

  /** True while the OS proxy points at the app (as far as this run knows). */
  get isApplied(): boolean {
    return this.state != null;
  }

  /** At start-up: if the last run left the proxy pointed at the app, put the user's settings back. */
  recoverAfterCrash(): Promise<RestoreSummary | null> {
    return this.enqueue(async () => {
      const state = await this.loadState();
      if (!state) return null;
      this.logger.warn(TAG, `the last run did not restore the system proxy (saved ${new Date(state.savedAt).toISOString()}); restoring it now`);
      return this.restoreState(state);
    });
  }

  /** Points every backend at `target`; the user's settings are read and saved first. */
  apply(target: ProxyTarget): Promise<ApplyReport> {
    return this.enqueue(async () => {
      const existing = await this.loadState();
      // Already ours: keep the snapshot of the user's settings (re-reading now would read ours).
      const state = existing ?? (await this.snapshot(target));
      if (state.entries.length === 0) return { applied: [], failed: [] };
      if (existing) {
        state.applied = target;
        await this.file.save(state);
      }
      const report: ApplyReport = { applied: [], failed: [] };
      for (const entry of state.entries) {
        const backend = this.backends.get(entry.backend);
        if (!backend) continue;
        try {
          await backend.apply(this.run, target, backend.snapshotSchema.parse(entry.previous));
          report.applied.push(entry.backend);
        } catch (error) {
          report.failed.push({ backend: entry.backend, error: message(error) });
          this.logger.error(TAG, `could not set the ${entry.backend} proxy: ${message(error)}`);
        }
      }
      if (report.applied.length > 0) this.logger.info(TAG, `system proxy set to ${target.host}:${target.httpPort} (${report.applied.join(', ')})`);
      return report;
    });
  }

  /** Puts the user's settings back; a no-op when nothing of ours is applied. */
  restore(): Promise<RestoreSummary | null> {
    return this.enqueue(async () => {
      const state = await this.loadState();
      return state ? this.restoreState(state) : null;
    });
  }

  private async snapshot(target: ProxyTarget): Promise<SavedState> {
    const entries: SavedState['entries'] = [];
    for (const backend of this.backends.values()) {
      try {
        entries.push({ backend: backend.id, previous: await backend.read(this.run) });
      } catch (error) {
        this.logger.error(TAG, `could not read the ${backend.id} proxy settings, leaving them untouched: ${message(error)}`);
      }
    }
    const state: SavedState = { version: 1, savedAt: this.now(), applied: target, entries };
    // Saved before anything changes: a crash between here and the restore is recoverable.
    if (entries.length > 0) {
      await this.file.save(state);
      this.state = state;
    }
    return state;
  }

  private async restoreState(state: SavedState): Promise<RestoreSummary> {
    const summary: RestoreSummary = { restored: [], leftAlone: [], warnings: [], failed: [] };
    const remaining: SavedState['entries'] = [];
    for (const entry of state.entries) {
      const backend = this.backends.get(entry.backend);
      if (!backend) {
        summary.failed.push({ backend: entry.backend, error: 'not available on this system' });
        continue;
      }
      try {
        const previous = backend.snapshotSchema.parse(entry.previous);
        const report = await backend.restore(this.run, previous, state.applied);
        summary.restored.push(...report.restored);
        summary.leftAlone.push(...report.leftAlone);
        summary.warnings.push(...report.warnings);
      } catch (error) {
        summary.failed.push({ backend: entry.backend, error: message(error) });
        remaining.push(entry);
      }
    }
    if (summary.restored.length > 0) this.logger.info(TAG, `system proxy restored (${summary.restored.join(', ')})`);
    if (summary.leftAlone.length > 0) {
      this.logger.info(TAG, `system proxy changed by the user meanwhile, kept as it is (${summary.leftAlone.join(', ')})`);
    }
    for (const warning of summary.warnings) this.logger.warn(TAG, warning);
    for (const { backend, error } of summary.failed) this.logger.error(TAG, `could not restore the ${backend} proxy: ${error}`);
    if (remaining.length > 0) {
      // Kept for the next attempt (the next quit or start): the user's settings are not forgotten.
      const rest: SavedState = { ...state, entries: remaining };
      await this.file.save(rest);
      this.state = rest;
    } else {
      await this.forget();
    }
    return summary;
  }

  private async loadState(): Promise<SavedState | null> {
    if (this.state !== undefined) return this.state;
    const loaded = await this.file.load();
    if (loaded.problem) this.logger.error(TAG, `${loaded.problem.detail} The previous proxy settings could not be read back.`);
    this.state = loaded.value;
    return this.state;
  }

  private async forget(): Promise<void> {
    this.state = null;
    for (const path of [this.file.path, this.file.backupPath]) {
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.catch(() => undefined).then(task);
    this.queue = next;
    return next;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
