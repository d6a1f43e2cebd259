import { fileURLToPath } from 'node:url';
import { helperLaunchCommand, type HelperMode, type LaunchCommand } from '../../app/system-wide/linux/policy/elevation';

/**
 * How the Node hosts (the CLI, the headless host) start the capture helper of this checkout: on
 * the same Node with the same loader flags (tsx), as root directly, through pkexec otherwise.
 */
export function checkoutHelperLaunch(mode: HelperMode): LaunchCommand {
  return helperLaunchCommand({
    euid: process.geteuid?.() ?? -1,
    execPath: process.execPath,
    execArgv: process.execArgv,
    helperScript: fileURLToPath(new URL('./capture-helper.ts', import.meta.url)),
    electron: false,
    mode,
  });
}
