import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import type { z } from 'zod';
import { type ConnectionMode, DEFAULT_SETTINGS, type Settings, storedSettingsSchema } from '../../shared/settings';
import type { FileFormat } from '../storage/format';
import type { Problem } from '../../shared/domain/problem';
import { describeFsError, type LoadResult, parseDocument, SaveError, setAside, unreadableProblem } from '../storage/json-file';
import { SETTINGS_FORMAT } from './format';

/** Where conf (and electron-store, built on it) keeps the migration it last ran. */
const INTERNAL_KEY = '__internal__';

/** The part of conf's (and electron-store's) API the settings use. */
export interface KeyValueStore {
  readonly path: string;
  store: Record<string, unknown>;
}

/** What conf is opened with; electron-store takes the same, naming the file `name`. */
export interface KeyValueStoreOptions {
  cwd: string;
  configName: string;
  projectVersion: string;
  migrations: Record<string, (store: KeyValueStore) => void>;
  configFileMode: number;
  clearInvalidConfig: false;
  accessPropertiesByDotNotation: false;
}

/** Builds the store the settings live in: conf in the headless host and the CLI, electron-store in the Electron host. */
export type SettingsBackend = (options: KeyValueStoreOptions) => KeyValueStore;

export const confBackend: SettingsBackend = (options) => new Conf<Record<string, unknown>>(options) as unknown as KeyValueStore;

export interface SettingsFileOptions {
  dataDir: string;
  backend?: SettingsBackend;
  format?: FileFormat;
  /** The connection mode of a first start (or of a file that never named one): hosts differ. */
  defaultMode?: ConnectionMode;
  /** Injected for tests: the time used in set-aside names. */
  now?: () => number;
}

/**
 * `<dataDir>/settings.json` (0600) on conf or electron-store: their migrations (the version they
 * ran is kept in the file) and their atomic writes. Around them, what users rely on: the last good
 * copy kept as `settings.json.bak`; a file that does not parse, validate or migrate is set aside as
 * `.corrupt-<time>` (never deleted) before the store opens it, and the backup or the defaults are
 * used; start-up never fails on it; a file written by a newer release is set aside, not rewritten.
 */
export class SettingsFile {
  readonly path: string;
  private readonly dataDir: string;
  private readonly backend: SettingsBackend;
  private readonly format: FileFormat;
  private readonly now: () => number;
  private readonly schema: z.ZodType<Settings>;
  private readonly defaults: Settings;
  private store: KeyValueStore | null = null;
  /** The file on disk is one we read as valid or wrote ourselves: it can become the backup as is. */
  private diskIsGood = false;

  constructor(options: SettingsFileOptions) {
    this.dataDir = options.dataDir;
    this.path = join(options.dataDir, 'settings.json');
    this.backend = options.backend ?? confBackend;
    this.format = options.format ?? SETTINGS_FORMAT;
    this.now = options.now ?? Date.now;
    const defaultMode = options.defaultMode ?? DEFAULT_SETTINGS.mode;
    this.schema = storedSettingsSchema(defaultMode);
    this.defaults = Object.freeze({ ...DEFAULT_SETTINGS, mode: defaultMode });
  }

  get backupPath(): string {
    return `${this.path}.bak`;
  }

  async load(): Promise<LoadResult<Settings>> {
    const primary = this.inspect(this.path);
    if (primary.kind === 'ok') return this.opened(primary.value, 'file', null, null, true);
    let problem: ((recovered: 'backup' | 'empty') => Problem) | null = null;
    let setAsideTo: string | null = null;
    if (primary.kind === 'bad') {
      setAsideTo = await setAside(this.path, this.now);
      problem = (recovered) => unreadableProblem(this.path, primary.reason, recovered, setAsideTo);
    }
    const backup = this.inspect(this.backupPath);
    if (backup.kind === 'ok') {
      // The backup takes the file's place only once the unreadable file is out of the way.
      const restored = (primary.kind === 'missing' || setAsideTo !== null) && this.restoreBackup();
      return this.opened(backup.value, 'backup', problem?.('backup') ?? null, setAsideTo, restored);
    }
    return this.opened(this.defaults, 'default', problem?.('empty') ?? null, setAsideTo, false);
  }

  /** Writes the whole settings atomically, keeping the file it replaces as the backup. */
  async save(settings: Settings): Promise<void> {
    try {
      const store = this.store ?? this.open();
      if (this.diskIsGood) this.keepBackup();
      store.store = { ...settings };
      this.diskIsGood = true;
    } catch (error) {
      throw new SaveError(this.path, error);
    }
  }

  /** What a file holds, read through the format's migrations without touching it. */
  private inspect(path: string): { kind: 'ok'; value: Settings } | { kind: 'missing' } | { kind: 'bad'; reason: string } {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      return { kind: 'bad', reason: describeFsError(error) };
    }
    return parseDocument(asVersioned(text), this.schema, this.format);
  }

  private keepBackup(): void {
    try {
      copyFileSync(this.path, this.backupPath);
    } catch {
      // No backup this time (the file went away, a full disk): the write itself says what matters.
    }
  }

  private restoreBackup(): boolean {
    try {
      copyFileSync(this.backupPath, this.path);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Opens the store on the file just judged readable (conf runs the migrations and writes the
   * result), or on none. When it cannot be opened, the value is used from memory and the next save
   * says why.
   */
  private opened(value: Settings, source: LoadResult<Settings>['source'], problem: Problem | null, setAsideTo: string | null, onDisk: boolean): LoadResult<Settings> {
    if (source === 'default' || onDisk) {
      try {
        this.open();
        this.diskIsGood = onDisk;
      } catch {
        this.store = null;
      }
    }
    return { value, source, problem, setAsideTo };
  }

  private open(): KeyValueStore {
    const { version, migrations } = this.format;
    // conf makes a missing folder with the default mode (0755 under the usual umask); the data
    // folder holds credentials, so it is made here first, the owner's alone.
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    this.store = this.backend({
      cwd: this.dataDir,
      configName: 'settings',
      projectVersion: semverOf(version),
      migrations: Object.fromEntries(
        Object.entries(migrations).map(([to, migration]) => [semverOf(Number(to)), (store: KeyValueStore) => void (store.store = migration(fieldsOf(store.store)))]),
      ),
      configFileMode: 0o600,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
    });
    return this.store;
  }
}

/** The format version N is conf's project version `N.0.0`. */
function semverOf(version: number): string {
  return `${version}.0.0`;
}

/** The settings without conf's bookkeeping. */
function fieldsOf(store: Record<string, unknown>): Record<string, unknown> {
  const { [INTERNAL_KEY]: _internal, ...fields } = store;
  return fields;
}

/**
 * The file's text with conf's migration record turned into the `version` the format reads: a file
 * without one (the first releases') is version 0; anything that is not a JSON object is left for
 * the parser to refuse.
 */
function asVersioned(text: string): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return text;
  const internal = (data as Record<string, unknown>)[INTERNAL_KEY] as { migrations?: { version?: unknown } } | undefined;
  const ran = typeof internal?.migrations?.version === 'string' ? Number.parseInt(internal.migrations.version, 10) : 0;
  return JSON.stringify({ ...fieldsOf(data as Record<string, unknown>), version: Number.isFinite(ran) ? ran : 0 });
}
