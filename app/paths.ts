import { homedir } from 'node:os';
import { join } from 'node:path';

export const APP_DIR_NAME = 'steadfast-vpn';

/**
 * The folder the app keeps its settings, subscriptions, cache, history and logs in.
 * `STEADFAST_DATA_DIR` overrides it (tests, the demo, portable installs).
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.STEADFAST_DATA_DIR) return env.STEADFAST_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_DIR_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_DIR_NAME);
}
