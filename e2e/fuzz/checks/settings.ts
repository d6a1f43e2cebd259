import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SettingsFile } from '../../../app/settings/settings-file';
import { SettingsStore } from '../../../app/settings/store';
import { type Settings, settingsPatchSchema, settingsSchema } from '../../../shared/settings';
import { ensure, ensureClearError, show } from './violation';

/** The patch schema alone: any value parses or fails with issues, never throws. */
export function checkSettingsPatchSchema(patch: unknown): void {
  const result = settingsPatchSchema.safeParse(patch);
  if (!result.success) ensure(result.error.issues.length > 0, 'failed without an issue');
}

export type StoreOutcome = { before: Settings; after: Settings } | { before: Settings; error: unknown };

/**
 * The settings store's patch path on a real file: a patch is applied whole (what is stored
 * validates and is on disk) or refused whole with the field named, and then nothing changed.
 */
export class SettingsStoreChecker {
  private constructor(
    private readonly dir: string,
    private readonly store: SettingsStore,
  ) {}

  static async open(): Promise<SettingsStoreChecker> {
    const dir = mkdtempSync(join(tmpdir(), 'fuzz-settings-'));
    const store = new SettingsStore(new SettingsFile({ dataDir: dir }));
    await store.load();
    return new SettingsStoreChecker(dir, store);
  }

  /** Applies the patch (the timed part). */
  async apply(patch: unknown): Promise<StoreOutcome> {
    const before = this.store.get();
    try {
      return { before, after: await this.store.save(this.store.validate(patch as never)) };
    } catch (error) {
      return { before, error };
    }
  }

  verify(outcome: StoreOutcome): void {
    if ('error' in outcome) {
      ensureClearError(outcome.error, 'invalid setting ');
      ensure(isDeepStrictEqual(this.store.get(), outcome.before), 'a refused patch changed the settings');
      return;
    }
    const { after } = outcome;
    ensure(settingsSchema.safeParse(after).success, () => `stored settings do not validate: ${show(after)}`);
    ensure(Object.isFrozen(after), 'the stored settings can be changed in place');
    ensure(isDeepStrictEqual(this.store.get(), after), 'get() does not return what save() stored');
    // Beside the settings, the file carries its format's version.
    const { version: _version, ...onDisk } = JSON.parse(readFileSync(join(this.dir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    ensure(isDeepStrictEqual(onDisk, JSON.parse(JSON.stringify(after))), 'the file does not hold the stored settings');
  }

  async close(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
