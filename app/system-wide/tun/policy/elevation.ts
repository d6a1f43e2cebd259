/**
 * How the TUN engine (sing-box) gets administrator rights, as data the app runs without a shell
 * of its own. The app itself never runs elevated: one system dialog per connection (UAC on
 * Windows, the authorisation dialog on macOS, pkexec's polkit prompt on Linux — none when the app
 * already runs as root there) starts a small elevated watchdog, and the watchdog runs sing-box. sing-box has no Windows service mode of its own (a service
 * binary must answer the service manager), so no service is installed.
 *
 * The watchdog's whole interface is a few files in the app's runtime folder:
 * - the control file holds `run <n>` (start sing-box; a new n restarts it on a new config) or
 *   `lift` (sing-box stopped, the watchdog waits): an Auto switch or a core restart never asks for
 *   rights again;
 * - the control file removed, or the app's process gone (crash, kill -9), and the watchdog stops
 *   sing-box and exits; it exits too when sing-box ends by itself;
 * - it writes its own pid and sing-box's into pid files, so the app can watch both.
 * The app could not stop an elevated process itself without asking again; deleting a file it owns
 * needs no rights, which is what makes disconnect and quit silent.
 */
export interface ElevatedCommand {
  file: string;
  args: string[];
}

export interface TunFiles {
  singBoxPath: string;
  configPath: string;
  controlFile: string;
  enginePidFile: string;
  watchdogPidFile: string;
  /** sing-box's output (warnings and its fatal error), read back when it stops. */
  logFile: string;
}

export interface TunWatchdog extends TunFiles {
  /** The app's process: the watchdog stops sing-box when it is gone. */
  appPid: number;
  /**
   * Shell lines run whenever sing-box has stopped, however it stopped, and before each start (the
   * watchdog starts lifted): on Linux, removing what a killed sing-box cannot take back itself
   * (linuxTunLeftoverRemoval).
   */
  afterEngine?: readonly string[];
  /**
   * Shell lines run just before each start of sing-box, after afterEngine's: on Linux, the rule
   * that keeps the core's marked packets out of the device (linuxTunCoreMarkRules).
   */
  beforeEngine?: readonly string[];
}

export type TunPlatform = 'win32' | 'darwin' | 'linux';

/** How the elevated side is reached: Linux needs no prompt when the app already runs as root. */
export interface TunElevation {
  platform: TunPlatform;
  /** Linux: the app runs as root (the CLI under sudo): the watchdog is started directly. */
  asRoot?: boolean;
}

/** What sing-box's auto_route puts on a Linux machine, by the numbers it was given. */
export interface LinuxTunObjects {
  device: string;
  table: number;
  ruleIndex: number;
  ruleSpan: number;
}

/**
 * Shell lines (root) removing what sing-box's TUN leaves when it is killed with -9 and cannot
 * take back its own: its policy-routing rules (by their priorities, which are ours alone) and its
 * route table; the device goes with its last file descriptor, and is deleted here in case it did
 * not. Every line succeeds when its object is already gone.
 */
export function linuxTunLeftoverRemoval(o: LinuxTunObjects): string[] {
  for (const n of [o.table, o.ruleIndex, o.ruleSpan]) if (!Number.isInteger(n) || n < 1) throw new Error(`invalid routing number ${String(n)}`);
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(o.device)) throw new Error(`invalid device name ${o.device}`);
  const priorities = Array.from({ length: o.ruleSpan }, (_, i) => o.ruleIndex + i).join(' ');
  return [
    `for p in ${priorities}; do for f in -4 -6; do while ip $f rule del priority $p 2>/dev/null; do :; done; done; done`,
    `ip -4 route flush table ${o.table} 2>/dev/null`,
    `ip -6 route flush table ${o.table} 2>/dev/null`,
    `ip link delete ${o.device} 2>/dev/null`,
    'true',
  ];
}

/** How often the watchdog looks at the app, the control file and sing-box. */
export const WATCHDOG_POLL_MS = 500;

/** A Windows command-line argument quoted the way CommandLineToArgvW reads it back. */
export function windowsQuote(argument: string): string {
  if (argument !== '' && !/[\s"]/.test(argument)) return argument;
  return `"${argument.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/** A POSIX shell word, single-quoted. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A PowerShell single-quoted string (' doubled, nothing else is special). */
export function powerShellQuote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** An AppleScript string literal. */
function appleScriptString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function assertPid(pid: number): void {
  if (!Number.isInteger(pid) || pid < 1) throw new Error(`invalid process id ${String(pid)}`);
}

/** The macOS and Linux watchdog, a POSIX shell script (run as root; tested here under dash and bash). */
export function posixWatchdogScript(o: TunWatchdog): string {
  assertPid(o.appPid);
  const afterEngine = o.afterEngine ?? [];
  const beforeEngine = o.beforeEngine ?? [];
  return [
    `app=${o.appPid}`,
    `control=${shellQuote(o.controlFile)}`,
    `engine_pid_file=${shellQuote(o.enginePidFile)}`,
    `watchdog_pid_file=${shellQuote(o.watchdogPidFile)}`,
    `echo $$ > "$watchdog_pid_file"`,
    `engine=''`,
    `running=''`,
    // A TERM lets sing-box take its routes back; KILL after five seconds.
    `stop_engine() {`,
    `  if [ -n "$engine" ]; then`,
    `    kill "$engine" 2>/dev/null`,
    `    ( sleep 5; kill -9 "$engine" 2>/dev/null ) & guard=$!`,
    `    wait "$engine" 2>/dev/null`,
    `    kill "$guard" 2>/dev/null`,
    `    engine=''`,
    `  fi`,
    ...afterEngine.map((line) => `  ${line}`),
    `  rm -f "$engine_pid_file"`,
    `}`,
    `trap 'stop_engine; rm -f "$watchdog_pid_file"; exit 0' TERM INT HUP`,
    `while kill -0 "$app" 2>/dev/null && [ -f "$control" ]; do`,
    // sing-box ended by itself: the app sees its pid file go and says why.
    `  if [ -n "$engine" ] && ! kill -0 "$engine" 2>/dev/null; then`,
    `    wait "$engine" 2>/dev/null; engine=''; break`,
    `  fi`,
    `  want=$(cat "$control" 2>/dev/null)`,
    // A file caught half-written reads as nothing: keep what runs rather than restart on it.
    `  case "$want" in lift|'run '[0-9]*) ;; *) want=$running ;; esac`,
    `  if [ "$want" != "$running" ]; then`,
    `    stop_engine`,
    `    running=$want`,
    `    if [ "$want" != lift ]; then`,
    ...beforeEngine.map((line) => `      ${line}`),
    `      ${shellQuote(o.singBoxPath)} run -c ${shellQuote(o.configPath)} >> ${shellQuote(o.logFile)} 2>&1 &`,
    `      engine=$!`,
    `      echo "$engine" > "$engine_pid_file"`,
    `    fi`,
    `  fi`,
    `  sleep ${WATCHDOG_POLL_MS / 1000}`,
    `done`,
    `stop_engine`,
    `rm -f "$watchdog_pid_file"`,
  ].join('\n');
}

/** The Windows watchdog, a PowerShell script run elevated (sing-box inherits its hidden console). */
export function powerShellWatchdogScript(o: TunWatchdog): string {
  assertPid(o.appPid);
  const q = {
    control: powerShellQuote(o.controlFile),
    enginePid: powerShellQuote(o.enginePidFile),
    watchdogPid: powerShellQuote(o.watchdogPidFile),
  };
  const runArguments = powerShellQuote(`run -c ${windowsQuote(o.configPath)}`);
  return [
    `$app = ${o.appPid}`,
    `Set-Content -LiteralPath ${q.watchdogPid} -Value $PID`,
    `$script:engine = $null`,
    `$running = ''`,
    `function Stop-Engine {`,
    `  if ($script:engine -and -not $script:engine.HasExited) { Stop-Process -Id $script:engine.Id -Force -ErrorAction SilentlyContinue; [void]$script:engine.WaitForExit(5000) }`,
    `  $script:engine = $null`,
    `  Remove-Item -LiteralPath ${q.enginePid} -ErrorAction SilentlyContinue`,
    `}`,
    `try {`,
    `  while ((Get-Process -Id $app -ErrorAction SilentlyContinue) -and (Test-Path -LiteralPath ${q.control})) {`,
    `    if ($script:engine -and $script:engine.HasExited) { break }`,
    `    $want = ([string](Get-Content -LiteralPath ${q.control} -Raw -ErrorAction SilentlyContinue)).Trim()`,
    `    if ($want -notmatch '^(lift|run \\d+)$') { $want = $running }`,
    `    if ($want -ne $running) {`,
    `      Stop-Engine`,
    `      $running = $want`,
    `      if ($want -ne 'lift') {`,
    `        $script:engine = Start-Process -FilePath ${powerShellQuote(o.singBoxPath)} -ArgumentList ${runArguments} -NoNewWindow -PassThru -RedirectStandardOutput ${powerShellQuote(`${o.logFile}.out`)} -RedirectStandardError ${powerShellQuote(o.logFile)}`,
    `        Set-Content -LiteralPath ${q.enginePid} -Value $script:engine.Id`,
    `      }`,
    `    }`,
    `    Start-Sleep -Milliseconds ${WATCHDOG_POLL_MS}`,
    `  }`,
    `} finally {`,
    `  Stop-Engine`,
    `  Remove-Item -LiteralPath ${q.watchdogPid} -ErrorAction SilentlyContinue`,
    `}`,
  ].join('\n');
}

/** -EncodedCommand: base64 of UTF-16LE, so no quoting layer can change the script on its way. */
export function encodePowerShell(script: string): string {
  return Buffer.from(script, 'utf16le').toString('base64');
}

/** Windows' ERROR_CANCELLED: the user answered No to the UAC prompt. */
export const UAC_CANCELLED = 1223;

/** Runs `script` in an elevated, hidden PowerShell (the UAC prompt); `wait` for it to finish. */
function windowsElevated(script: string, wait: boolean): ElevatedCommand {
  const inner = `-NoProfile -NonInteractive -WindowStyle Hidden -EncodedCommand ${encodePowerShell(script)}`;
  const outer = [
    `try { Start-Process -FilePath 'powershell.exe' -ArgumentList ${powerShellQuote(inner)} -Verb RunAs -WindowStyle Hidden${wait ? ' -Wait' : ''} -ErrorAction Stop }`,
    `catch { $e = $_.Exception; while ($e) { if ($e.NativeErrorCode -eq ${UAC_CANCELLED}) { exit ${UAC_CANCELLED} }; $e = $e.InnerException }; [Console]::Error.WriteLine($_.Exception.Message); exit 1 }`,
  ].join('\n');
  return { file: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-EncodedCommand', encodePowerShell(outer)] };
}

function withAdministratorPrivileges(shell: string): ElevatedCommand {
  return { file: '/usr/bin/osascript', args: ['-e', `do shell script ${appleScriptString(shell)} with administrator privileges`] };
}

/**
 * Linux: `shell` as root — directly when the app is root, else through pkexec (polkit's prompt;
 * it runs only an absolute path, and /bin/sh is one).
 */
function linuxElevated(shell: string, asRoot: boolean): ElevatedCommand {
  return asRoot ? { file: '/bin/sh', args: ['-c', shell] } : { file: 'pkexec', args: ['/bin/sh', '-c', shell] };
}

/** Starts the watchdog elevated; it returns once the user has answered the system's dialog. */
export function startTunCommand(elevation: TunElevation, o: TunWatchdog): ElevatedCommand {
  const { platform } = elevation;
  if (platform === 'win32') return windowsElevated(powerShellWatchdogScript(o), false);
  const watchdog = `/bin/sh -c ${shellQuote(posixWatchdogScript(o))} > /dev/null 2>&1`;
  // Linux: in a session of its own, so a Ctrl-C in the app's terminal reaches the app (which
  // disconnects in order), not the watchdog; holding none of the app's pipes.
  if (platform === 'linux') return linuxElevated(`setsid ${watchdog} < /dev/null &`, elevation.asRoot === true);
  // In the background with its output elsewhere, or `do shell script` would wait for it.
  return withAdministratorPrivileges(`${watchdog} &`);
}

/**
 * Stops what a killed run left when its watchdog died with it (the only way sing-box outlives
 * the app): each pid only if its command line still names our config, so a pid reused since by
 * another program is left alone.
 */
export function stopLeftoverCommand(elevation: TunElevation, o: { pids: readonly number[]; configPath: string; afterEngine?: readonly string[] }): ElevatedCommand {
  const { platform } = elevation;
  o.pids.forEach(assertPid);
  if (platform === 'win32') {
    const needle = powerShellQuote(o.configPath);
    const script = o.pids
      .map((pid) => `$p = Get-CimInstance Win32_Process -Filter 'ProcessId = ${pid}'; if ($p -and $p.CommandLine -and $p.CommandLine.Contains(${needle})) { Stop-Process -Id ${pid} -Force }`)
      .join('\n');
    return windowsElevated(script, true);
  }
  const needle = shellQuote(o.configPath);
  const stops = o.pids.map((pid) => `if ps -p ${pid} -o command= | grep -qF -- ${needle}; then kill ${pid}; fi`);
  if (platform === 'linux') {
    // sing-box takes its rules back on TERM; what a killed one left goes after it.
    const settle = o.pids.map((pid) => `for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 ${pid} 2>/dev/null || break; sleep 0.5; done`);
    return linuxElevated([...stops, ...settle, ...(o.afterEngine ?? []), 'true'].join('; '), elevation.asRoot === true);
  }
  return withAdministratorPrivileges(stops.join('; '));
}

/** pkexec's "not authorised" and "dialog dismissed" (pkexec(1)). */
const PKEXEC_REFUSED = [126, 127];

/** The user said no to the system's dialog (UAC's ERROR_CANCELLED; osascript's -128; pkexec's 126). */
export function elevationRefused(platform: TunPlatform, code: number | null, stderr: string): boolean {
  if (platform === 'win32') return code === UAC_CANCELLED;
  if (platform === 'linux') return code !== null && PKEXEC_REFUSED.includes(code);
  return code !== 0 && /\(-128\)/.test(stderr);
}
