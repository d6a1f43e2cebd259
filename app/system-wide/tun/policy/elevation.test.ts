import { describe, expect, it } from 'vitest';
import { macStartTun, macStopTun, shellQuote, windowsInstallService, windowsQuote, windowsServiceCommand } from './elevation';

describe('Windows: a demand-start service for the TUN engine', () => {
  it.each([
    ['plain', 'plain'],
    ['C:\\Program Files\\x.exe', '"C:\\Program Files\\x.exe"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['C:\\dir with space\\', '"C:\\dir with space\\\\"'],
    ['', '""'],
  ])('quotes %j as %s', (argument, quoted) => {
    expect(windowsQuote(argument)).toBe(quoted);
  });

  it('is created through an elevated PowerShell (one UAC prompt) with sing-box’s run command as its binary', () => {
    const command = windowsInstallService({ singBoxPath: 'C:\\Program Files\\Steadfast VPN\\sing-box.exe', configPath: "C:\\Users\\O'Brien\\tun.json" });
    expect(command.file).toBe('powershell.exe');
    expect(command.args.slice(0, 3)).toEqual(['-NoProfile', '-NonInteractive', '-Command']);
    expect(command.args[3]).toBe(
      "Start-Process -FilePath 'sc.exe' -ArgumentList 'create','SteadfastVpnTun','binPath=','\"\\\"C:\\Program Files\\Steadfast VPN\\sing-box.exe\\\" run -c C:\\Users\\O''Brien\\tun.json\"','start=','demand','DisplayName=','\"Steadfast VPN TUN\"' -Verb RunAs -Wait -WindowStyle Hidden",
    );
  });

  it('is started, stopped and removed by name', () => {
    expect(windowsServiceCommand('start')).toEqual({ file: 'sc.exe', args: ['start', 'SteadfastVpnTun'] });
    expect(windowsServiceCommand('stop')).toEqual({ file: 'sc.exe', args: ['stop', 'SteadfastVpnTun'] });
  });
});

describe('macOS: the system’s authorisation dialog', () => {
  const tun = { singBoxPath: '/Applications/Steadfast VPN.app/Contents/Resources/sing-box', configPath: "/Users/o'brien/tun.json", pidFile: '/tmp/sf tun.pid', logFile: '/tmp/sf.log' };

  it('quotes shell words so a path cannot become a command', () => {
    expect(shellQuote("a'; rm -rf / #")).toBe(`'a'\\''; rm -rf / #'`);
  });

  it('starts sing-box in the background with administrator privileges, its pid kept', () => {
    expect(macStartTun(tun)).toEqual({
      file: '/usr/bin/osascript',
      args: [
        '-e',
        `do shell script "'/Applications/Steadfast VPN.app/Contents/Resources/sing-box' run -c '/Users/o'\\\\''brien/tun.json' > '/tmp/sf.log' 2>&1 & echo $! > '/tmp/sf tun.pid'" with administrator privileges`,
      ],
    });
  });

  it('stops it by that pid (nothing to stop is not an error)', () => {
    expect(macStopTun(tun).args[1]).toBe(`do shell script "[ -f '/tmp/sf tun.pid' ] && kill \\"$(cat '/tmp/sf tun.pid')\\" 2>/dev/null; rm -f '/tmp/sf tun.pid'" with administrator privileges`);
  });
});
