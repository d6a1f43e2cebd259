import type { Logger } from '../../app/log/logger';
import type { SettingsBackend } from '../../app/settings/settings-file';
import type { VpnClient } from '../../shared/ipc/contract';
import type { ConnectionMode } from '../../shared/settings';
import type { LaunchCommand } from '../../app/system-wide/linux/policy/elevation';

/** The engine as the desktop shell sees it: the contract's operations and events, and a way to stop. */
export type DesktopEngine = VpnClient & {
  stop(): Promise<void>;
  /** An "add to app" link from the OS: it waits in the engine for the user's confirmation. */
  offerLink(raw: string): unknown;
};

/** What the shell hands the engine's composition root (app/engine `createEngine`). */
export interface DesktopEngineOptions {
  /** The app's data folder (settings, subscriptions, cache, history, logs). */
  dataDir: string;
  /** The folder holding `core/`: `process.resourcesPath` when packaged, the repository's `resources/` otherwise. */
  resourcesDir: string;
  logger: Logger;
  /** The connection mode of a first start (the desktop app's is `system-proxy`). */
  defaultMode: ConnectionMode;
  /** Where the settings live (electron-store in the desktop app). */
  settingsBackend?: SettingsBackend;
  /** How system-wide mode's privileged helper is started (pkexec; see app/system-wide). */
  captureHelper?: (mode: 'session' | 'remove') => LaunchCommand;
}

export type CreateEngine = (options: DesktopEngineOptions) => Promise<DesktopEngine>;
