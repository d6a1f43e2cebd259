import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeSingBox } from '../testing/fake-sing-box';
import { processAlive } from '../../../process/alive';
import { waitFor } from '../../../testing/wait';
import { LINUX_TUN } from './sing-box-tun';
import {
  elevationRefused,
  linuxTunLeftoverRemoval,
  posixWatchdogScript,
  powerShellQuote,
  shellQuote,
  startTunCommand,
  stopLeftoverCommand,
  type TunWatchdog,
  UAC_CANCELLED,
  windowsQuote,
} from './elevation';

const decode = (base64: string) => Buffer.from(base64, 'base64').toString('utf16le');
/** The script an elevated PowerShell runs, out of the outer command's Start-Process line. */
const innerScript = (outer: string) => decode(/-EncodedCommand ([A-Za-z0-9+/=]+)/.exec(outer)![1]!);
const outerScript = (args: string[]) => decode(args[args.indexOf('-EncodedCommand') + 1]!);

describe('quoting', () => {
  it.each([
    ['plain', 'plain'],
    ['C:\\Program Files\\x.exe', '"C:\\Program Files\\x.exe"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['C:\\dir with space\\', '"C:\\dir with space\\\\"'],
    ['', '""'],
  ])('a Windows argument %j is %s', (argument, quoted) => {
    expect(windowsQuote(argument)).toBe(quoted);
  });

  it('shell and PowerShell words cannot become commands', () => {
    expect(shellQuote("a'; rm -rf / #")).toBe(`'a'\\''; rm -rf / #'`);
    expect(powerShellQuote("C:\\Users\\O'Brien")).toBe("'C:\\Users\\O''Brien'");
  });
});

const winFiles: TunWatchdog = {
  appPid: 4242,
  singBoxPath: 'C:\\Program Files\\Steadfast VPN\\resources\\core\\sing-box.exe',
  configPath: "C:\\Users\\O'Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\sing-box-tun.json",
  controlFile: "C:\\Users\\O'Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\tun.control",
  enginePidFile: "C:\\Users\\O'Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\tun-engine.pid",
  watchdogPidFile: "C:\\Users\\O'Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\tun-watchdog.pid",
  logFile: "C:\\Users\\O'Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\sing-box.log",
};

describe('Windows: one UAC prompt starts the elevated watchdog', () => {
  const command = startTunCommand({ platform: 'win32' }, winFiles);
  const outer = outerScript(command.args);
  const watchdog = innerScript(outer);

  it('is a hidden elevated PowerShell started by an unelevated one, the scripts base64-encoded so no quoting layer can alter them', () => {
    expect(command.file).toBe('powershell.exe');
    expect(command.args.slice(0, 3)).toEqual(['-NoProfile', '-NonInteractive', '-EncodedCommand']);
    expect(outer).toContain("Start-Process -FilePath 'powershell.exe'");
    expect(outer).toContain('-Verb RunAs -WindowStyle Hidden -ErrorAction Stop');
    // It returns once sing-box's watchdog runs; the watchdog lives on.
    expect(outer).not.toContain('-Wait');
  });

  it('answers "No" on the UAC prompt with its own exit code', () => {
    expect(outer).toContain(`if ($e.NativeErrorCode -eq 1223) { exit 1223 }`);
  });

  it('runs sing-box on our config, hidden, its output kept', () => {
    expect(watchdog).toContain(
      `Start-Process -FilePath 'C:\\Program Files\\Steadfast VPN\\resources\\core\\sing-box.exe' -ArgumentList 'run -c C:\\Users\\O''Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\sing-box-tun.json' -NoNewWindow -PassThru`,
    );
    expect(watchdog).toContain(`-RedirectStandardError 'C:\\Users\\O''Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\sing-box.log'`);
  });

  it('watches the app, the control file and sing-box, and stops sing-box whichever goes', () => {
    expect(watchdog).toContain("while ((Get-Process -Id $app -ErrorAction SilentlyContinue) -and (Test-Path -LiteralPath 'C:\\Users\\O''Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\tun.control'))");
    expect(watchdog).toContain('$app = 4242');
    expect(watchdog).toContain('if ($script:engine -and $script:engine.HasExited) { break }');
    expect(watchdog).toMatch(/finally \{\n {2}Stop-Engine/);
    expect(watchdog).toContain("if ($want -ne 'lift')");
    expect(watchdog).toContain("if ($want -notmatch '^(lift|run \\d+)$') { $want = $running }");
  });

  it('fits a Windows command line even with long paths', () => {
    const long = 'C:\\' + 'a-rather-long-folder-name\\'.repeat(8);
    const files = Object.fromEntries(Object.entries(winFiles).map(([k, v]) => [k, typeof v === 'string' ? long + v.slice(3) : v])) as unknown as TunWatchdog;
    const { args } = startTunCommand({ platform: 'win32' }, files);
    expect(['powershell.exe', ...args].join(' ').length).toBeLessThan(32_767);
  });

  it('stops a leftover only while its command line still names our config, and waits for it', () => {
    const stop = outerScript(stopLeftoverCommand({ platform: 'win32' }, { pids: [300, 301], configPath: winFiles.configPath }).args);
    expect(stop).toContain('-Verb RunAs -WindowStyle Hidden -Wait');
    const script = innerScript(stop);
    expect(script).toContain(`$p = Get-CimInstance Win32_Process -Filter 'ProcessId = 300'; if ($p -and $p.CommandLine -and $p.CommandLine.Contains('C:\\Users\\O''Brien\\AppData\\Roaming\\steadfast-vpn\\runtime\\sing-box-tun.json')) { Stop-Process -Id 300 -Force }`);
    expect(script).toContain('Stop-Process -Id 301 -Force');
  });
});

describe('macOS: the system’s authorisation dialog starts the watchdog', () => {
  const files: TunWatchdog = { ...winFiles, singBoxPath: '/Applications/Steadfast VPN.app/Contents/Resources/core/sing-box', configPath: "/Users/o'brien/tun.json" };

  it('as root, in the background (do shell script would wait for it otherwise)', () => {
    const command = startTunCommand({ platform: 'darwin' }, files);
    expect(command.file).toBe('/usr/bin/osascript');
    expect(command.args[0]).toBe('-e');
    expect(command.args[1]).toMatch(/^do shell script "\/bin\/sh -c '.*' > \/dev\/null 2>&1 &" with administrator privileges$/s);
  });

  it('a leftover is killed only while it still runs our config', () => {
    expect(stopLeftoverCommand({ platform: 'darwin' }, { pids: [77], configPath: '/Users/me/tun.json' }).args[1]).toBe(
      `do shell script "if ps -p 77 -o command= | grep -qF -- '/Users/me/tun.json'; then kill 77; fi" with administrator privileges`,
    );
  });

  it('refuses a pid that is not one', () => {
    expect(() => stopLeftoverCommand({ platform: 'darwin' }, { pids: [0], configPath: '/x' })).toThrow('invalid process id');
    expect(() => startTunCommand({ platform: 'darwin' }, { ...files, appPid: Number.NaN })).toThrow('invalid process id');
  });
});

describe('Linux: root starts the watchdog directly, anyone else through pkexec', () => {
  const files: TunWatchdog = { ...winFiles, appPid: 77, singBoxPath: '/opt/Steadfast VPN/resources/core/sing-box', configPath: '/home/me/.config/steadfast-vpn/runtime/sing-box-tun.json' };

  it.each([
    [true, '/bin/sh', ['-c']],
    [false, 'pkexec', ['/bin/sh', '-c']],
  ] as const)('as root %s: %s, the watchdog in a session of its own, in the background, holding none of the app’s pipes', (asRoot, file, prefix) => {
    const command = startTunCommand({ platform: 'linux', asRoot }, { ...files, afterEngine: ['echo cleaned'] });
    expect(command.file).toBe(file);
    expect(command.args.slice(0, prefix.length)).toEqual(prefix);
    const shell = command.args[prefix.length]!;
    expect(shell).toMatch(/^setsid \/bin\/sh -c '.*' > \/dev\/null 2>&1 < \/dev\/null &$/s);
    expect(shell).toContain('echo cleaned');
  });

  it('a leftover is stopped only while it runs our config, and what sing-box left is removed after it', () => {
    const command = stopLeftoverCommand({ platform: 'linux', asRoot: false }, { pids: [77], configPath: files.configPath, afterEngine: ['echo cleaned'] });
    expect(command.file).toBe('pkexec');
    expect(command.args[2]).toMatch(/^if ps -p 77 -o command= \| grep -qF -- '\/home\/me\/.*sing-box-tun.json'; then kill 77; fi; for i in .*; do kill -0 77 .*; echo cleaned; true$/);
  });

  it('the removal names only sing-box’s objects, by the numbers it was given', () => {
    const lines = linuxTunLeftoverRemoval(LINUX_TUN);
    expect(lines[0]).toBe(`for p in ${Array.from({ length: LINUX_TUN.ruleSpan }, (_, i) => LINUX_TUN.ruleIndex + i).join(' ')}; do for f in -4 -6; do while ip $f rule del priority $p 2>/dev/null; do :; done; done; done`);
    expect(lines).toContain(`ip -4 route flush table ${LINUX_TUN.table} 2>/dev/null`);
    expect(lines).toContain(`ip link delete ${LINUX_TUN.device} 2>/dev/null`);
    expect(() => linuxTunLeftoverRemoval({ ...LINUX_TUN, device: 'x; reboot' })).toThrow('invalid device name');
    expect(() => linuxTunLeftoverRemoval({ ...LINUX_TUN, table: 0 })).toThrow('invalid routing number');
  });
});

describe('the user saying no is told apart from a failure', () => {
  it.each([
    ['win32', UAC_CANCELLED, '', true],
    ['win32', 1, 'This command cannot be run due to the error: The system cannot find the file specified.', false],
    ['win32', 0, '', false],
    ['darwin', 1, '0:103: execution error: User canceled. (-128)', true],
    ['darwin', 1, '0:103: execution error: The administrator user name or password was incorrect. (-60007)', false],
    ['darwin', 0, '', false],
    ['linux', 126, 'Error executing command as another user: Not authorized', true],
    ['linux', 127, 'Error executing command as another user: No authentication agent found.', true],
    ['linux', 1, '', false],
    ['linux', 0, '', false],
  ] as const)('%s exit %s %j: refused %s', (platform, code, stderr, refused) => {
    expect(elevationRefused(platform, code, stderr)).toBe(refused);
  });
});

// The macOS watchdog is a POSIX script: run for real (without root: the fake sing-box needs none)
// under both shells it may meet, dash and bash.
describe.each(['/bin/dash', '/bin/bash'])('the watchdog script under %s', (shell) => {
  const started: ChildProcess[] = [];
  const groups: number[] = [];
  const engines: ReturnType<typeof fakeSingBox>[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL');
    // A watchdog killed with -9 cannot stop its sing-box, and one it was starting as the test
    // ended is in no list yet: each watchdog leads its own process group, and the group goes
    // whole (a shell without job control runs its `&` children in its own group).
    for (const group of groups.splice(0)) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const engine of engines.splice(0)) for (const { pid } of engine.runs()) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  function launch(o: { afterEngine?: boolean; beforeEngine?: boolean } = {}) {
    const dir = mkdtempSync(join(tmpdir(), "tun watchdog '"));
    const marker = join(dir, 'after-engine');
    const engine = fakeSingBox();
    engines.push(engine);
    const configPath = join(dir, 'sing-box-tun.json');
    writeFileSync(configPath, JSON.stringify({ inbounds: [{ type: 'mixed', listen: '127.0.0.1', listen_port: 0 }] }));
    const app = spawn('sleep', ['60']);
    started.push(app);
    const files: TunWatchdog = {
      appPid: app.pid!,
      singBoxPath: engine.path,
      configPath,
      controlFile: join(dir, 'tun.control'),
      enginePidFile: join(dir, 'tun-engine.pid'),
      watchdogPidFile: join(dir, 'tun-watchdog.pid'),
      logFile: join(dir, 'sing-box.log'),
      ...(o.afterEngine ? { afterEngine: [`echo after >> ${shellQuote(marker)}`] } : {}),
      ...(o.beforeEngine ? { beforeEngine: [`echo before >> ${shellQuote(marker)}`] } : {}),
    };
    writeFileSync(files.controlFile, 'lift');
    const watchdog = spawn(shell, ['-c', posixWatchdogScript(files)], { stdio: 'ignore', detached: true });
    started.push(watchdog);
    groups.push(watchdog.pid!);
    const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
    const enginePid = () => (existsSync(files.enginePidFile) ? Number(readFileSync(files.enginePidFile, 'utf8')) : null);
    return { dir, marker, engine, app, files, watchdog, exited, enginePid, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }

  // Four waits of up to 5 s each: on a busy machine the whole round trip outlasts vitest's 5 s.
  it('waits lifted, runs sing-box on `run`, stops it on `lift`, and restarts it on a new `run` without being started again', async () => {
    const w = launch();
    // Written by `echo $$ >`: there (created) a moment before it holds the pid.
    await waitFor('the watchdog pid file written', () => existsSync(w.files.watchdogPidFile) && readFileSync(w.files.watchdogPidFile, 'utf8').trim() !== '', 5000, 25);
    expect(Number(readFileSync(w.files.watchdogPidFile, 'utf8'))).toBe(w.watchdog.pid);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(w.engine.runs()).toEqual([]);
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null && w.engine.runs().length === 1', () => w.enginePid() !== null && w.engine.runs().length === 1, 5000, 25);
    const first = w.enginePid()!;
    expect(w.engine.runs()).toEqual([{ pid: first, config: w.files.configPath }]);
    writeFileSync(w.files.controlFile, 'lift');
    await waitFor('w.enginePid() === null && !processAlive(first)', () => w.enginePid() === null && !processAlive(first), 5000, 25);
    writeFileSync(w.files.controlFile, 'run 2');
    await waitFor('w.enginePid() !== null && w.engine.runs().length === 2', () => w.enginePid() !== null && w.engine.runs().length === 2, 5000, 25);
    expect(w.engine.runs()[1]!.pid).toBe(w.enginePid());
    expect(processAlive(w.watchdog.pid!)).toBe(true);
    w.cleanup();
  }, 20_000);

  it('a control file caught half-written restarts nothing', async () => {
    const w = launch();
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null && w.engine.runs().length === 1', () => w.enginePid() !== null && w.engine.runs().length === 1, 5000, 25);
    writeFileSync(w.files.controlFile, '');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    writeFileSync(w.files.controlFile, 'run 1');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(w.engine.runs()).toHaveLength(1);
    expect(w.enginePid()).toBe(w.engine.runs()[0]!.pid);
    w.cleanup();
  });

  it('stops sing-box and leaves when the app is killed', async () => {
    const w = launch();
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null', () => w.enginePid() !== null, 5000, 25);
    const engine = w.enginePid()!;
    w.app.kill('SIGKILL');
    await w.exited;
    expect(processAlive(engine)).toBe(false);
    expect(existsSync(w.files.enginePidFile)).toBe(false);
    expect(existsSync(w.files.watchdogPidFile)).toBe(false);
    w.cleanup();
  });

  it('stops sing-box and leaves when the control file is removed (disconnect, quit)', async () => {
    const w = launch();
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null', () => w.enginePid() !== null, 5000, 25);
    const engine = w.enginePid()!;
    rmSync(w.files.controlFile);
    await w.exited;
    expect(processAlive(engine)).toBe(false);
    w.cleanup();
  });

  it('leaves when sing-box ends by itself, its error in the log', async () => {
    const w = launch();
    w.engine.behave('fatal');
    writeFileSync(w.files.controlFile, 'run 1');
    await w.exited;
    expect(existsSync(w.files.enginePidFile)).toBe(false);
    expect(readFileSync(w.files.logFile, 'utf8')).toContain('configure tun interface: operation not permitted');
    w.cleanup();
  });

  it('runs what must follow sing-box (Linux: removing what a killed one left) before the first start and after every stop', async () => {
    const w = launch({ afterEngine: true });
    const runs = () => (existsSync(w.marker) ? readFileSync(w.marker, 'utf8').split('\n').filter(Boolean).length : 0);
    await waitFor('runs() === 1', () => runs() === 1, 5000, 25);
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null', () => w.enginePid() !== null, 5000, 25);
    expect(runs()).toBe(2);
    process.kill(w.enginePid()!, 'SIGKILL');
    await w.exited;
    expect(runs()).toBe(3);
    w.cleanup();
  });

  it('runs what must precede sing-box (Linux: the core mark rule) just before each start, after the removal, and never while lifted', async () => {
    const w = launch({ afterEngine: true, beforeEngine: true });
    const lines = () => (existsSync(w.marker) ? readFileSync(w.marker, 'utf8').split('\n').filter(Boolean) : []);
    await waitFor('the first removal', () => lines().length === 1, 5000, 25);
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null', () => w.enginePid() !== null, 5000, 25);
    expect(lines()).toEqual(['after', 'after', 'before']);
    writeFileSync(w.files.controlFile, 'lift');
    await waitFor('w.enginePid() === null', () => w.enginePid() === null, 5000, 25);
    expect(lines()).toEqual(['after', 'after', 'before', 'after']);
    writeFileSync(w.files.controlFile, 'run 2');
    await waitFor('w.enginePid() !== null', () => w.enginePid() !== null, 5000, 25);
    expect(lines()).toEqual(['after', 'after', 'before', 'after', 'after', 'before']);
    w.cleanup();
  }, 20_000);

  it('stops sing-box when it is itself told to stop', async () => {
    const w = launch();
    writeFileSync(w.files.controlFile, 'run 1');
    await waitFor('w.enginePid() !== null', () => w.enginePid() !== null, 5000, 25);
    const engine = w.enginePid()!;
    w.watchdog.kill('SIGTERM');
    await w.exited;
    expect(processAlive(engine)).toBe(false);
    w.cleanup();
  });
});
