import { constants as fsConstants } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { z } from 'zod';
import type { Problem } from '../../shared/domain/problem';
import { firstIssuePlace } from '../../shared/zod-issues';
import { type FileFormat, stamp, upgrade } from './format';
import { processAlive } from '../process/alive';
import type { ProblemSink } from './problem-sink';

/** How an unreadable file was recovered from, in words. */
const RECOVERED_SENTENCE = { backup: 'the last good copy was used', empty: 'starting empty' } as const;

/**
 * A save that did not happen (a full disk, a read-only folder). Its message is for the caller;
 * its problem is for the user, who must know that what they see may not survive a restart.
 */
export class SaveError extends Error {
  readonly problem: Problem;

  constructor(path: string, cause: unknown) {
    const reason = describeFsError(cause);
    super(`could not save ${path}: ${reason}`, { cause });
    this.name = 'SaveError';
    const file = basename(path);
    this.problem = {
      topic: { kind: 'save-failed', file },
      detail: `Could not save ${file} (${reason}). The app keeps working with what it has in memory; free some space or check the folder's permissions.`,
    };
  }
}

/** How a load went: what was used, and what the user should be told if anything was wrong. */
export interface LoadResult<T> {
  value: T;
  /** Where the value came from. */
  source: 'file' | 'backup' | 'default';
  /** For the user when the file was unreadable (it was set aside, nothing deleted). */
  problem: Problem | null;
  /** Where the unreadable file was moved to. */
  setAsideTo: string | null;
}

export interface JsonFileOptions<T> {
  path: string;
  schema: z.ZodType<T>;
  /** The version this release writes and how older files become it (read before the schema). */
  format: FileFormat;
  /** The value used when there is no file (or no readable copy of it). */
  fallback: () => T;
  /** 0o600 for files that hold credentials. */
  mode?: number;
  /** Injected for tests: the time used in set-aside names. */
  now?: () => number;
  /** Where a failed save is put for the user (the caller still hears the SaveError and keeps its value). */
  problems?: ProblemSink;
}

/**
 * A JSON document on disk that is never half-written and never silently lost:
 * - it carries its format's version; an older file is brought up to date through the format's
 *   migrations as it is read (and written in the new format at the next save);
 * - writes go to a temporary file, are flushed, then renamed over the old one (atomic on POSIX
 *   and NTFS), and the previous good file is kept as `<path>.bak`;
 * - a file that does not parse or validate is moved aside to `<path>.corrupt-<time>` (never
 *   deleted), the `.bak` copy is tried next, and only then the fallback;
 * - a failed write (read-only folder, full disk) rejects with the reason and leaves the last good
 *   file in place, and its problem goes to the owner's problem sink; the caller keeps its
 *   in-memory value.
 */
export class JsonFile<T> {
  readonly path: string;
  private readonly schema: z.ZodType<T>;
  private readonly format: FileFormat;
  private readonly fallback: () => T;
  private readonly mode: number;
  private readonly now: () => number;
  private readonly problems: ProblemSink | null;
  private writing: Promise<void> = Promise.resolve();
  /** The file on disk is one we loaded as valid or wrote ourselves: it can become the backup as is. */
  private diskIsGood = false;

  constructor(options: JsonFileOptions<T>) {
    this.path = options.path;
    this.schema = options.schema;
    this.format = options.format;
    this.fallback = options.fallback;
    this.mode = options.mode ?? 0o644;
    this.now = options.now ?? Date.now;
    this.problems = options.problems ?? null;
  }

  get backupPath(): string {
    return `${this.path}.bak`;
  }

  async load(): Promise<LoadResult<T>> {
    await this.removeStaleTemporaries();
    const primary = await this.readValid(this.path);
    this.diskIsGood = primary.kind === 'ok';
    if (primary.kind === 'ok') return { value: primary.value, source: 'file', problem: null, setAsideTo: null };
    if (primary.kind === 'missing') {
      const backup = await this.readValid(this.backupPath);
      if (backup.kind === 'ok') return { value: backup.value, source: 'backup', problem: null, setAsideTo: null };
      return { value: this.fallback(), source: 'default', problem: null, setAsideTo: null };
    }
    const setAsideTo = await setAside(this.path, this.now);
    const backup = await this.readValid(this.backupPath);
    if (backup.kind === 'ok') {
      return { value: backup.value, source: 'backup', problem: unreadableProblem(this.path, primary.reason, 'backup', setAsideTo), setAsideTo };
    }
    return { value: this.fallback(), source: 'default', problem: unreadableProblem(this.path, primary.reason, 'empty', setAsideTo), setAsideTo };
  }

  /** Writes atomically; concurrent saves are applied in call order. */
  save(value: T): Promise<void> {
    const text = `${JSON.stringify(stamp(value, this.format), null, 1)}\n`;
    const next = this.writing.catch(() => undefined).then(() => this.writeAtomically(text));
    this.writing = next;
    return next;
  }

  private async writeAtomically(text: string): Promise<void> {
    const tmp = `${this.path}.tmp-${process.pid}`;
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      const handle = await open(tmp, 'w', this.mode);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      // Keep the current good file as the backup before replacing it (validated only when we
      // have not seen it, so large files are not re-parsed on every save).
      if (this.diskIsGood || (await this.readValid(this.path)).kind === 'ok') {
        await copyFile(this.path, this.backupPath).catch(() => undefined);
      }
      await rename(tmp, this.path);
      this.diskIsGood = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EISDIR') await unlink(tmp).catch(() => undefined);
      const failed = new SaveError(this.path, error);
      this.problems?.raise(failed.problem, 'error');
      throw failed;
    }
  }

  private async readValid(
    path: string,
  ): Promise<{ kind: 'ok'; value: T } | { kind: 'missing' } | { kind: 'bad'; reason: string }> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      return { kind: 'bad', reason: describeFsError(error) };
    }
    return parseDocument(text, this.schema, this.format);
  }

  /** Temporary files of writers that died mid-save (`<name>.tmp-<pid>` of a pid no longer running). */
  private async removeStaleTemporaries(): Promise<void> {
    const prefix = `${basename(this.path)}.tmp-`;
    const names = await readdir(dirname(this.path)).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const pid = Number(name.slice(prefix.length));
      if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
      await unlink(join(dirname(this.path), name)).catch(() => undefined);
    }
  }

}

/** A stored document's text read as this release's value: JSON, brought up to its format, validated. */
export function parseDocument<T>(text: string, schema: z.ZodType<T>, format: FileFormat): { kind: 'ok'; value: T } | { kind: 'bad'; reason: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'bad', reason: text.length === 0 ? 'the file is empty' : 'not valid JSON' };
  }
  const upgraded = upgrade(data, format);
  if (!upgraded.ok) return { kind: 'bad', reason: upgraded.reason };
  const parsed = schema.safeParse(upgraded.document);
  if (!parsed.success) return { kind: 'bad', reason: `unexpected content at ${firstIssuePlace(parsed.error, { whole: 'top level' })}` };
  return { kind: 'ok', value: parsed.data };
}

/** The problem of a file that could not be read, and how the app went on. */
export function unreadableProblem(path: string, reason: string, recovered: 'backup' | 'empty', setAsideTo: string | null): Problem {
  const where = setAsideTo ? ` It was moved to ${setAsideTo}.` : '';
  return {
    topic: { kind: 'file-unreadable', file: basename(path), recovered },
    detail: `${path} was unreadable (${reason}); ${RECOVERED_SENTENCE[recovered]}.${where}`,
  };
}

/** Moves an unreadable file to `<path>.corrupt-<time>` (a copy when it cannot be moved); never deletes it. */
export async function setAside(path: string, now: () => number): Promise<string | null> {
  const target = `${path}.corrupt-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
  try {
    await rename(path, target);
    return target;
  } catch {
    try {
      await copyFile(path, target, fsConstants.COPYFILE_EXCL);
      return target;
    } catch {
      return null;
    }
  }
}

export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the folder is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EISDIR':
      return 'a folder is in the way';
    // A file where the data folder (or one above it) should be: open() says ENOTDIR, mkdir EEXIST.
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file is in the way of its folder';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
