import type { Command, CommandResult } from '../command';
import { INTERNET_SETTINGS_KEY } from '../windows';

type RegValue = { type: 'REG_SZ'; data: string } | { type: 'REG_DWORD'; data: number };

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
const fail = (stderr: string): CommandResult => ({ code: 1, stdout: '', stderr });

/**
 * A stand-in for `reg.exe` over one registry key, printing what Windows 10/11 prints, so the
 * Windows backend can be exercised end to end on a machine without Windows. Every command is
 * recorded; `powershell.exe` (the WinINet refresh) is counted.
 */
export class FakeRegistry {
  readonly values = new Map<string, RegValue>();
  readonly commands: Command[] = [];
  refreshes = 0;

  constructor(initial: Record<string, string | number> = {}) {
    for (const [name, data] of Object.entries(initial)) {
      this.values.set(name, typeof data === 'number' ? { type: 'REG_DWORD', data } : { type: 'REG_SZ', data });
    }
  }

  get(name: string): string | number | undefined {
    return this.values.get(name)?.data;
  }

  readonly run = async (cmd: Command): Promise<CommandResult> => {
    this.commands.push(cmd);
    if (cmd.file === 'powershell.exe') {
      this.refreshes++;
      return ok();
    }
    if (cmd.file !== 'reg') return { code: null, stdout: '', stderr: `${cmd.file}: not found` };
    const [verb, key, ...rest] = cmd.args;
    if (key !== INTERNET_SETTINGS_KEY) return fail('ERROR: The system was unable to find the specified registry key or value.');
    const option = (flag: string) => {
      const i = rest.indexOf(flag);
      return i >= 0 ? rest[i + 1] : undefined;
    };
    switch (verb) {
      case 'query': {
        if (rest.length > 0) return fail('ERROR: this fake only lists the whole key');
        const lines = ['', `HKEY_CURRENT_USER${key.slice('HKCU'.length)}`];
        for (const [name, value] of this.values) {
          const data = value.type === 'REG_DWORD' ? `0x${value.data.toString(16)}` : value.data;
          lines.push(`    ${name}    ${value.type}    ${data}`);
        }
        lines.push('', `HKEY_CURRENT_USER${key.slice('HKCU'.length)}\\5.0`, `HKEY_CURRENT_USER${key.slice('HKCU'.length)}\\Connections`, '');
        return ok(lines.join('\r\n'));
      }
      case 'add': {
        const name = option('/v');
        const type = option('/t');
        const data = option('/d');
        if (!name || data === undefined || !rest.includes('/f')) return fail('ERROR: Invalid syntax.');
        if (type === 'REG_DWORD') {
          if (!/^\d+$/.test(data)) return fail('ERROR: Invalid syntax.');
          this.values.set(name, { type, data: Number(data) });
        } else if (type === 'REG_SZ') {
          this.values.set(name, { type, data });
        } else {
          return fail('ERROR: Invalid syntax.');
        }
        return ok('The operation completed successfully.\r\n');
      }
      case 'delete': {
        const name = option('/v');
        if (!name || !rest.includes('/f')) return fail('ERROR: Invalid syntax.');
        if (!this.values.delete(name)) return fail('ERROR: The system was unable to find the specified registry key or value.');
        return ok('The operation completed successfully.\r\n');
      }
      default:
        return fail('ERROR: Invalid syntax.');
    }
  };
}
