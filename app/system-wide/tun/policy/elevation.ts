/**
 * How the TUN engine (sing-box) gets administrator rights on Windows and macOS, as data the app
 * runs without a shell of its own. The app itself never runs elevated.
 * - Windows: a demand-start service runs sing-box as LocalSystem (wintun needs it); the app
 *   creates it once (one UAC prompt), starts it on connect and stops it on disconnect, quit and
 *   at the next start after a crash (stopping a stopped service is harmless).
 * - macOS: `osascript … with administrator privileges` (the system's authorisation dialog) starts
 *   sing-box in the background with its pid in a file, and stops it by that pid.
 */
export interface ElevatedCommand {
  file: string;
  args: string[];
}

export const WINDOWS_SERVICE_NAME = 'SteadfastVpnTun';

/** A Windows command-line argument quoted the way CommandLineToArgvW reads it back. */
export function windowsQuote(argument: string): string {
  if (argument !== '' && !/[\s"]/.test(argument)) return argument;
  return `"${argument.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

export interface WindowsTunService {
  singBoxPath: string;
  configPath: string;
}

/** Created through an elevated PowerShell (the UAC prompt), since sc.exe itself cannot ask. */
export function windowsInstallService(o: WindowsTunService): ElevatedCommand {
  const binPath = `${windowsQuote(o.singBoxPath)} run -c ${windowsQuote(o.configPath)}`;
  const scArgs = ['create', WINDOWS_SERVICE_NAME, 'binPath=', binPath, 'start=', 'demand', 'DisplayName=', 'Steadfast VPN TUN'];
  // PowerShell single-quoted strings escape ' as ''.
  const psList = scArgs.map((a) => `'${windowsQuote(a).replace(/'/g, "''")}'`).join(',');
  return {
    file: 'powershell.exe',
    args: ['-NoProfile', '-NonInteractive', '-Command', `Start-Process -FilePath 'sc.exe' -ArgumentList ${psList} -Verb RunAs -Wait -WindowStyle Hidden`],
  };
}

export function windowsServiceCommand(action: 'start' | 'stop' | 'delete'): ElevatedCommand {
  return { file: 'sc.exe', args: [action, WINDOWS_SERVICE_NAME] };
}

/** A POSIX shell word, single-quoted. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An AppleScript string literal. */
function appleScriptString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function withAdministratorPrivileges(shell: string): ElevatedCommand {
  return { file: '/usr/bin/osascript', args: ['-e', `do shell script ${appleScriptString(shell)} with administrator privileges`] };
}

export interface MacTun {
  singBoxPath: string;
  configPath: string;
  pidFile: string;
  logFile: string;
}

export function macStartTun(o: MacTun): ElevatedCommand {
  return withAdministratorPrivileges(
    `${shellQuote(o.singBoxPath)} run -c ${shellQuote(o.configPath)} > ${shellQuote(o.logFile)} 2>&1 & echo $! > ${shellQuote(o.pidFile)}`,
  );
}

export function macStopTun(o: Pick<MacTun, 'pidFile'>): ElevatedCommand {
  const pid = shellQuote(o.pidFile);
  return withAdministratorPrivileges(`[ -f ${pid} ] && kill "$(cat ${pid})" 2>/dev/null; rm -f ${pid}`);
}
