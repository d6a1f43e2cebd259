import type { z } from 'zod';
import type { CommandRunner } from './command';
import type { ProxyTarget } from './target';

export const BACKEND_IDS = ['windows', 'macos', 'gnome', 'kde'] as const;
export type BackendId = (typeof BACKEND_IDS)[number];

/** What a restore did, part by part (a macOS network service, "GNOME", "KDE", "Windows"). */
export interface RestoreReport {
  restored: string[];
  /** Parts the user changed by hand while the app was running: their change is kept. */
  leftAlone: string[];
  /** What the user must do by hand (e.g. re-enter a proxy password the OS would not give back). */
  warnings: string[];
}

/**
 * One place the operating system keeps its proxy settings. `read` captures the user's settings
 * exactly enough to put them back; `apply` points them at the app; `restore` puts back what `read`
 * captured, but only where the settings still hold what `apply` wrote, so a restore never
 * overwrites a change the user made by hand while the app was running (or after it crashed).
 */
export interface ProxyBackend<S = unknown> {
  readonly id: BackendId;
  /** Validates a snapshot read back from the saved file. */
  readonly snapshotSchema: z.ZodType<S>;
  read(run: CommandRunner): Promise<S>;
  apply(run: CommandRunner, target: ProxyTarget, previous: S): Promise<void>;
  restore(run: CommandRunner, previous: S, applied: ProxyTarget): Promise<RestoreReport>;
}
