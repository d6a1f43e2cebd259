import type { z } from 'zod';
import { routingIssuePlace } from '../../shared/routing';
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch, settingsPatchSchema, settingsSchema, unknownGroupReferences } from '../../shared/settings';
import type { Problem } from '../../shared/domain/problem';
import { dottedPath, firstIssueLine } from '../../shared/zod-issues';
import type { LoadResult } from '../storage/json-file';
import { type ListenerErrorSink, Signal } from '../events';

/** Where the settings are kept (SettingsFile: conf or electron-store on disk). */
export interface SettingsPersistence {
  load(): Promise<LoadResult<Settings>>;
  save(settings: Settings): Promise<void>;
}

/**
 * The user's settings: parsed, defaulted and validated once at the boundary, then handed out as
 * immutable values. A patch that does not validate is refused whole, with the field named.
 */
export class SettingsStore {
  private current: Settings = DEFAULT_SETTINGS;
  /** Set when the settings file was unreadable at start (it was set aside). */
  problem: Problem | null = null;

  private readonly changed: Signal<Settings>;

  /** `onListenerError`: where a listener's throw is reported (the change itself stands). */
  constructor(
    private readonly file: SettingsPersistence,
    onListenerError?: ListenerErrorSink,
  ) {
    this.changed = new Signal('settings', onListenerError);
  }

  async load(): Promise<Settings> {
    const result = await this.file.load();
    this.current = Object.freeze(result.value);
    this.problem = result.problem;
    return this.current;
  }

  get(): Settings {
    return this.current;
  }

  /**
   * Applies a validated patch, persists it and tells listeners. Throws with the field at fault, or
   * when the file cannot be saved: then nothing changes (the caller was told the change failed,
   * so a later patch must not carry it to disk). Updates run one at a time, each on the last.
   */
  update(patch: SettingsPatch): Promise<Settings> {
    const run = this.updating.catch(() => undefined).then(() => this.apply(patch));
    this.updating = run;
    return run;
  }

  private updating: Promise<unknown> = Promise.resolve();

  private async apply(patch: SettingsPatch): Promise<Settings> {
    const parsedPatch = settingsPatchSchema.safeParse(patch);
    if (!parsedPatch.success) throw new Error(describe(parsedPatch.error));
    const merged = {
      ...this.current,
      ...parsedPatch.data,
      monitor: { ...this.current.monitor, ...(parsedPatch.data.monitor ?? {}) },
    };
    const parsed = settingsSchema.safeParse(merged);
    if (!parsed.success) throw new Error(describe(parsed.error));
    // A rule may name a group only once the group exists (both may come in one patch).
    const unknownGroup = unknownGroupReferences(parsed.data)[0];
    if (unknownGroup) throw new Error(`invalid setting routing, ${unknownGroup}`);
    const next = Object.freeze(parsed.data);
    await this.file.save(next);
    this.current = next;
    this.changed.emit(this.current);
    return this.current;
  }

  onChange(listener: (settings: Settings) => void): () => void {
    return this.changed.on(listener);
  }
}

function describe(error: z.ZodError): string {
  return `invalid setting ${firstIssueLine(error, { whole: '(all)', place: settingPlace })}`;
}

/** Routing entries are named as the user sees them: "routing, rule 3, ip 1"; the rest dotted. */
function settingPlace(path: readonly PropertyKey[]): string {
  return path[0] === 'routing' || path[0] === 'dns' ? routingIssuePlace(path) : dottedPath(path);
}
