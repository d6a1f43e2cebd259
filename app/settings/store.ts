import { EngineRefusal } from '../../shared/domain/refusal';
import { type IssueLike, validationOf } from '../../shared/domain/validation';
import { routingIssuePlace } from '../../shared/routing';
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch, settingsPatchSchema, unknownGroupReferences } from '../../shared/settings';
import type { Problem } from '../../shared/domain/problem';
import type { LoadResult } from '../storage/json-file';

/** Where the settings are kept (SettingsFile, a JsonFile on disk). */
export interface SettingsPersistence {
  load(): Promise<LoadResult<Settings>>;
  save(settings: Settings): Promise<void>;
}

/**
 * The user's settings: read once at start, then handed out as immutable values. A patch is
 * validated once, against the settings in force (`validate`); what it gives is put in force only
 * once it is on disk (`save`). The engine's settings path (engine/settings-path.ts) runs the two
 * one change at a time, with the change's effects between them.
 */
export class SettingsStore {
  private current: Settings = DEFAULT_SETTINGS;
  /** Set when the settings file was unreadable at start (it was set aside). */
  problem: Problem | null = null;

  constructor(private readonly file: SettingsPersistence) {}

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
   * The settings this patch makes of the ones in force, validated (the patch's fields by the
   * schema, then what only the whole can tell: a rule may name a group only once the group
   * exists, and both may come in one patch). Throws with the field at fault; changes nothing.
   */
  validate(patch: SettingsPatch): Settings {
    const parsed = settingsPatchSchema.safeParse(patch);
    if (!parsed.success) throw refused(parsed.error.issues[0]);
    const { monitor, ...fields } = parsed.data;
    const next: Settings = {
      ...this.current,
      ...mentioned(fields),
      monitor: { ...this.current.monitor, ...mentioned(monitor ?? {}) },
    };
    const unknownGroup = unknownGroupReferences(next)[0];
    if (unknownGroup) {
      const english = `invalid setting routing, ${unknownGroup.text}`;
      const issue = { code: 'custom', path: ['routing', 'rules', unknownGroup.index], message: unknownGroup.text, params: { topic: 'unknown-group', outbound: unknownGroup.outbound } };
      throw new EngineRefusal('invalid-setting', english, validationOf(issue, english));
    }
    return Object.freeze(next);
  }

  /**
   * Persists validated settings, then they are the ones in force. When the file cannot be saved
   * this throws and nothing changes (the caller was told the change failed, so a later patch must
   * not carry it to disk).
   */
  async save(next: Settings): Promise<Settings> {
    await this.file.save(next);
    this.current = next;
    return next;
  }
}

/** The fields a patch names (a key sent as `undefined` names nothing). */
function mentioned<T extends object>(fields: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<{ [K in keyof T]: Exclude<T[K], undefined> }>;
}

/** The refusal for a patch's first problem: the English sentence, and the problem for the window to word. */
function refused(issue: IssueLike | undefined): Error {
  const english = describe(issue);
  return issue ? new EngineRefusal('invalid-setting', english, validationOf(issue, english)) : new Error(english);
}

/** A zod issue as the user reads it. */
function describe(issue: { path: readonly PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'invalid settings';
  // Routing entries are named as the user sees them: "routing, rule 3, ip 1".
  if (issue.path[0] === 'routing' || issue.path[0] === 'dns') return `invalid setting ${routingIssuePlace(issue.path)}: ${issue.message}`;
  return `invalid setting ${issue.path.map(String).join('.') || '(all)'}: ${issue.message}`;
}
