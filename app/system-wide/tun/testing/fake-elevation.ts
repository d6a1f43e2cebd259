import { spawn } from 'node:child_process';
import type { ElevatedCommand } from '../policy/elevation';
import { systemTunHost, type TunHost } from '../tun-session';

/**
 * The machine as the TUN capture sees it, with the system's dialog replaced: an `osascript …
 * with administrator privileges` command has its AppleScript string unescaped and its shell text
 * run by /bin/sh as this user (nothing here needs root: sing-box is a stand-in), so what runs is
 * exactly what macOS would run. Windows commands are recorded and answered (PowerShell cannot run
 * here). `answer` decides how the dialog goes.
 */
export interface FakeElevation extends TunHost {
  commands: ElevatedCommand[];
  answer: 'yes' | 'no';
  /** The outcome of a Windows command (answered, never run). */
  windowsOutcome: { code: number | null; stderr: string };
}

export function fakeElevation(appPid = process.pid): FakeElevation {
  const fake: FakeElevation = {
    commands: [],
    answer: 'yes',
    windowsOutcome: { code: 0, stderr: '' },
    appPid,
    alive: systemTunHost.alive,
    run: async (command) => {
      fake.commands.push(command);
      if (command.file === 'powershell.exe') return fake.answer === 'no' ? { code: 1223, stderr: '' } : fake.windowsOutcome;
      if (command.file !== '/usr/bin/osascript') return { code: null, stderr: `${command.file}: not found` };
      if (fake.answer === 'no') return { code: 1, stderr: '0:233: execution error: User canceled. (-128)\n' };
      return runShell(appleScriptShellText(command.args[1] ?? ''));
    },
  };
  return fake;
}

/** The shell text of `do shell script "…" with administrator privileges`. */
export function appleScriptShellText(script: string): string {
  const match = /^do shell script "((?:[^"\\]|\\.)*)" with administrator privileges$/s.exec(script);
  if (!match) throw new Error(`not a do shell script command: ${script.slice(0, 80)}`);
  return match[1]!.replace(/\\(.)/gs, '$1');
}

function runShell(text: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', text], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('close', (code) => resolve({ code, stderr }));
  });
}
