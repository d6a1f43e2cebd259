/** What the CLI's commands share: their data folder, their errors, their modes. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SystemWide } from '../../app/system-wide/for-platform';
import { type ConnectionMode, SYSTEM_WIDE_CAPTURES, type SystemWideCaptureMethod } from '../../shared/settings';
import { UsageError } from '../args';
import { defaultDataDir } from '../../app/paths';

/** Failures worth a sentence, not a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The CLI keeps its own profile beside the desktop app's: `<app data>/cli`. */
export function cliDataDir(): string {
  return join(defaultDataDir(), 'cli');
}

/** The repository's resources/ (bundled cores in development). */
export function repositoryResources(): string {
  return fileURLToPath(new URL('../../resources', import.meta.url));
}

/** `--mode`: the CLI runs `proxy` or `system-wide` (pointing the OS's proxy is the desktop app's). */
export function cliMode(raw: string, usage: string): Extract<ConnectionMode, 'proxy' | 'system-wide'> {
  if (raw === 'system-proxy') throw new UsageError("--mode system-proxy is the desktop app's; the CLI runs proxy or system-wide");
  if (raw !== 'proxy' && raw !== 'system-wide') throw new UsageError(`--mode is proxy or system-wide, got "${raw}"\n${usage}`);
  return raw;
}

/** `--capture`: how system-wide mode captures on Linux (nftables TPROXY, or sing-box's TUN). */
export function cliCapture(raw: string, usage: string): SystemWideCaptureMethod {
  if (!(SYSTEM_WIDE_CAPTURES as readonly string[]).includes(raw)) throw new UsageError(`--capture is ${SYSTEM_WIDE_CAPTURES.join(' or ')}, got "${raw}"\n${usage}`);
  return raw as SystemWideCaptureMethod;
}

/** Says what system-wide mode applied once it is in (the rules follow the core's start). */
export async function reportCapture(capture: Pick<SystemWide, 'status' | 'onChange'>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!capture.status().active && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const status = capture.status();
  console.log(status.active ? `system-wide: applied ${status.detail ?? ''}` : 'system-wide: capture is not in place (see the log above)');
  capture.onChange((next) => console.log(next.active ? `system-wide: applied again ${next.detail ?? ''}` : 'system-wide: capture removed'));
}
