/**
 * The headless host's command line. `--settings FILE` is the same validated settings patch
 * `connect --auto` takes (main/settings-file.ts): the monitor's test, IP-info and transfer-test
 * URLs, say, pointed at the lab. `--test-url` wins over the file's test URLs.
 */
import type { SettingsPatch } from '../../shared/settings';
import { defaultDataDir } from '../../app/paths';
import { portOption, readOptions, UsageError } from '../args';
import { readSettingsFile, SettingsFileError } from '../settings-file';

export interface HeadlessArgs {
  subscriptions: string[];
  port: number;
  dataDir: string;
  links: string[];
  /** What the engine applies over the stored settings at start; undefined when nothing is given. */
  settingsOverrides: SettingsPatch | undefined;
}

export const HEADLESS_USAGE =
  'usage: npm run headless -- [--subscription URL …] [--open LINK …] [--port N] [--data-dir DIR] [--test-url URL …] [--settings FILE]';

/** Reads the options and the settings file; a bad option or file throws a UsageError saying which. */
export async function readHeadlessArgs(argv: readonly string[]): Promise<HeadlessArgs> {
  const { values } = readOptions(
    argv,
    {
      subscription: { type: 'string', multiple: true },
      open: { type: 'string', multiple: true },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'test-url': { type: 'string', multiple: true },
      settings: { type: 'string' },
    },
    HEADLESS_USAGE,
  );
  const port = values.port === '0' ? 0 : (portOption('--port', values.port) ?? 0);
  let fromFile: SettingsPatch = {};
  if (values.settings !== undefined) {
    try {
      fromFile = await readSettingsFile(values.settings);
    } catch (error) {
      if (error instanceof SettingsFileError) throw new UsageError(error.message);
      throw error;
    }
  }
  const testUrls = values['test-url'] ?? [];
  const overrides: SettingsPatch = testUrls.length > 0 ? { ...fromFile, monitor: { ...fromFile.monitor, urls: testUrls } } : fromFile;
  return {
    subscriptions: values.subscription ?? [],
    port,
    dataDir: values['data-dir'] ?? defaultDataDir(),
    links: values.open ?? [],
    settingsOverrides: Object.keys(overrides).length > 0 ? overrides : undefined,
  };
}
