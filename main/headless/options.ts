/**
 * The headless host's command line. `--settings FILE` is the same validated settings patch
 * `connect --auto` takes (main/settings-file.ts): the monitor's test, IP-info and transfer-test
 * URLs, say, pointed at the lab. `--test-url` wins over the file's test URLs, `--core` (the main
 * core: xray, v2ray or a path, as Settings → Core stores it) over the file's `corePath`.
 */
import type { SettingsPatch } from '../../shared/settings';
import { defaultDataDir } from '../../app/paths';
import { coreOption, portOption, readOptions, UsageError } from '../args';
import { readSettingsFile, SettingsFileError } from '../settings-patch-file';

export interface HeadlessArgs {
  subscriptions: string[];
  port: number;
  dataDir: string;
  links: string[];
  /** What the engine applies over the stored settings at start; undefined when nothing is given. */
  settingsOverrides: SettingsPatch | undefined;
}

export const HEADLESS_USAGE =
  'usage: npm run headless -- [--subscription URL …] [--open LINK …] [--port N] [--data-dir DIR] [--test-url URL …] [--core xray|v2ray|PATH] [--settings FILE]';

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
      core: { type: 'string' },
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
  const corePath = coreOption(values.core);
  const overrides: SettingsPatch = {
    ...fromFile,
    ...(testUrls.length > 0 ? { monitor: { ...fromFile.monitor, urls: testUrls } } : {}),
    ...(corePath !== undefined ? { corePath } : {}),
  };
  return {
    subscriptions: values.subscription ?? [],
    port,
    dataDir: values['data-dir'] ?? defaultDataDir(),
    links: values.open ?? [],
    settingsOverrides: Object.keys(overrides).length > 0 ? overrides : undefined,
  };
}
