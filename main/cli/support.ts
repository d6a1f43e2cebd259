/** What the CLI's commands share: their data folder, their errors, their modes. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SystemWide } from '../../app/system-wide/for-platform';
import { type ConnectionMode, SYSTEM_WIDE_CAPTURES, type SystemWideCaptureMethod } from '../../shared/settings';
import { UsageError } from '../args';
import { defaultDataDir } from '../../app/paths';
import type { Logger } from '../../app/log/logger';
import { KillSwitch, type KillSwitchState } from '../../app/system-wide/kill-switch/kill-switch';
import { checkoutHelperLaunch } from '../helper/launch';

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

/**
 * The kill switch of `connect [--auto] --kill-switch` (Linux). Found in force from an earlier run,
 * it is said first; with the flag its list becomes the given servers, without it the rules are left
 * as they are. Either way they stay after the command ends, and the caller says so.
 */
export async function cliKillSwitch(logger: Logger): Promise<KillSwitch> {
  const killSwitch = new KillSwitch({ dataDir: defaultDataDir(), logger, launch: checkoutHelperLaunch });
  const left = await killSwitch.load();
  if (left) console.log(`kill switch: ${left} (\`npm run cli -- kill-switch off\` turns it off)`);
  return killSwitch;
}

/** Says what the kill switch lets out. */
export function reportKillSwitch(state: KillSwitchState): void {
  console.log(state.on ? `kill switch: on; allowed outside the tunnel: ${state.addresses.length} server address(es)${state.allowLan ? ' and the LAN' : ''}` : 'kill switch: not in force (see the log above)');
}

/** Turns it on for these servers and says so. */
export async function engageKillSwitch(killSwitch: KillSwitch, servers: readonly { address: string }[], allowLan: boolean): Promise<void> {
  reportKillSwitch(await killSwitch.engage(servers, allowLan));
}

export const KILL_SWITCH_STAYS = 'kill switch: still in force; `npm run cli -- kill-switch off` turns it off';

/** At the end of a connect: the rules stay, by design. */
export async function leaveKillSwitch(killSwitch: KillSwitch | null): Promise<void> {
  if (!killSwitch) return;
  await killSwitch.close();
  if (killSwitch.state().on) console.log(KILL_SWITCH_STAYS);
}
