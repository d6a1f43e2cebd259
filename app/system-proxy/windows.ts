import { z } from 'zod';
import type { ProxyBackend } from './backend';
import { type Command, type CommandRunner, command, runAll, runChecked } from './command';
import type { ProxyTarget } from './target';

/**
 * Windows keeps the per-user proxy (the one browsers and most apps use through WinINet) in the
 * registry under `HKCU\…\Internet Settings`: `ProxyEnable` (DWORD), `ProxyServer` ("host:port"
 * for every protocol), `ProxyOverride` (";"-separated exceptions, `<local>` = plain host names) and
 * `AutoConfigURL` (a PAC file, which would take precedence over ProxyServer, so it is set aside
 * while connected and put back afterwards).
 *
 * Registry edits alone reach new programs only: running ones re-read the settings when WinINet is
 * told they changed (`InternetSetOption` with SETTINGS_CHANGED then REFRESH). `reg.exe` cannot
 * do that, so a one-line PowerShell P/Invoke does; when it fails, new connections of already
 * running apps may keep the old proxy until they restart, and the change is still correct.
 */
export const INTERNET_SETTINGS_KEY = 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings';
export const REG = 'reg';

export const WINDOWS_VALUES = ['ProxyEnable', 'ProxyServer', 'ProxyOverride', 'AutoConfigURL'] as const;
type WindowsValue = (typeof WINDOWS_VALUES)[number];

/** Loopback and plain host names; the same list Windows' own proxy page fills in for "local addresses". */
export const WINDOWS_BYPASS = ['localhost', '127.*', '[::1]', '<local>'] as const;

const text = z.string().max(8192).nullable();
export const windowsSnapshotSchema = z
  .object({
    ProxyEnable: z.number().int().min(0).max(0xffffffff).nullable(),
    ProxyServer: text,
    ProxyOverride: text,
    AutoConfigURL: text,
  })
  .strict();
export type WindowsSnapshot = z.infer<typeof windowsSnapshotSchema>;

/**
 * One query of the whole key: values that do not exist are simply not listed, which reads the same
 * on every Windows language (a per-value query fails with a translated message instead).
 */
export function windowsReadCommand(): Command {
  return command(REG, 'query', INTERNET_SETTINGS_KEY);
}

function addString(name: WindowsValue, value: string): Command {
  return command(REG, 'add', INTERNET_SETTINGS_KEY, '/v', name, '/t', 'REG_SZ', '/d', value, '/f');
}
function addDword(name: WindowsValue, value: number): Command {
  return command(REG, 'add', INTERNET_SETTINGS_KEY, '/v', name, '/t', 'REG_DWORD', '/d', String(value), '/f');
}
function remove(name: WindowsValue): Command {
  return command(REG, 'delete', INTERNET_SETTINGS_KEY, '/v', name, '/f');
}

export function windowsProxyServer(target: ProxyTarget): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return `${host}:${target.httpPort}`;
}

/** Tells WinINet (and so running browsers) that the settings changed: options 39 then 37. */
export function winInetRefreshCommand(): Command {
  const script = [
    "$w = Add-Type -Name WinInet -Namespace SteadfastVpn -PassThru -MemberDefinition '[DllImport(\"wininet.dll\")] public static extern bool InternetSetOption(IntPtr h, int o, IntPtr b, int l);'",
    '[void]$w::InternetSetOption([IntPtr]::Zero, 39, [IntPtr]::Zero, 0)',
    '[void]$w::InternetSetOption([IntPtr]::Zero, 37, [IntPtr]::Zero, 0)',
  ].join('; ');
  return command('powershell.exe', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-Command', script);
}

/** The server and exceptions first, the PAC set aside, then the switch: nothing half-set is ever live. */
export function windowsApplyCommands(target: ProxyTarget, previous: WindowsSnapshot): Command[] {
  return [
    addString('ProxyServer', windowsProxyServer(target)),
    addString('ProxyOverride', WINDOWS_BYPASS.join(';')),
    ...(previous.AutoConfigURL !== null ? [remove('AutoConfigURL')] : []),
    addDword('ProxyEnable', 1),
  ];
}

/** Every value back, or deleted when it did not exist before; the switch last. */
export function windowsRestoreCommands(previous: WindowsSnapshot): Command[] {
  const commands: Command[] = [];
  for (const name of ['ProxyServer', 'ProxyOverride'] as const) {
    const value = previous[name];
    commands.push(value === null ? remove(name) : addString(name, value));
  }
  if (previous.AutoConfigURL !== null) commands.push(addString('AutoConfigURL', previous.AutoConfigURL));
  commands.push(previous.ProxyEnable === null ? remove('ProxyEnable') : addDword('ProxyEnable', previous.ProxyEnable));
  return commands;
}

/**
 * Parses a `reg query KEY` listing. Value lines read `    NAME    REG_TYPE    DATA` (DWORDs in hex,
 * `0x1`); subkeys are printed as full paths without indentation and are skipped.
 */
export function parseRegValues(output: string): Map<string, string | number> {
  const values = new Map<string, string | number>();
  for (const line of output.split(/\r?\n/)) {
    const match = /^\s+(.+?)\s{4}(REG_[A-Z_]+)(?:\s{4}(.*))?$/.exec(line);
    if (!match) continue;
    const [, name, type, data = ''] = match;
    if (type === 'REG_DWORD') {
      const n = Number.parseInt(data.trim(), 16);
      if (!Number.isNaN(n)) values.set(name!.toLowerCase(), n);
    } else {
      values.set(name!.toLowerCase(), data);
    }
  }
  return values;
}

export function parseWindowsSnapshot(output: string): WindowsSnapshot {
  const values = parseRegValues(output);
  const textOf = (name: WindowsValue) => {
    const v = values.get(name.toLowerCase());
    return typeof v === 'string' ? v : null;
  };
  const enable = values.get('proxyenable');
  return {
    ProxyEnable: typeof enable === 'number' ? enable : null,
    ProxyServer: textOf('ProxyServer'),
    ProxyOverride: textOf('ProxyOverride'),
    AutoConfigURL: textOf('AutoConfigURL'),
  };
}

export function windowsIsOurs(current: WindowsSnapshot, target: ProxyTarget): boolean {
  return current.ProxyEnable === 1 && current.ProxyServer === windowsProxyServer(target);
}

async function readWindows(run: CommandRunner): Promise<WindowsSnapshot> {
  return parseWindowsSnapshot(await runChecked(run, windowsReadCommand()));
}

export function windowsBackend(): ProxyBackend<WindowsSnapshot> {
  // A failed refresh is not a failed change (see above), so its result is not checked.
  const refresh = async (run: CommandRunner) => void (await run(winInetRefreshCommand()));
  return {
    id: 'windows',
    snapshotSchema: windowsSnapshotSchema,
    read: readWindows,
    async apply(run, target, previous) {
      await runAll(run, windowsApplyCommands(target, previous));
      await refresh(run);
    },
    async restore(run, previous, applied) {
      if (!windowsIsOurs(await readWindows(run), applied)) return { restored: [], leftAlone: ['Windows'], warnings: [] };
      await runAll(run, windowsRestoreCommands(previous));
      await refresh(run);
      return { restored: ['Windows'], leftAlone: [], warnings: [] };
    },
  };
}
