import type { Command, CommandResult } from '../command';

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });

/**
 * A stand-in for `kreadconfig5/6` and `kwriteconfig5/6` over kioslaverc's "Proxy Settings" group
 * (and `dbus-send`, counted), for machines without KDE Frameworks.
 */
export class FakeKConfig {
  readonly values = new Map<string, string>();
  readonly commands: Command[] = [];
  reloads = 0;

  constructor(initial: Record<string, string> = {}) {
    for (const [k, v] of Object.entries(initial)) this.values.set(k, v);
  }

  readonly run = async (cmd: Command): Promise<CommandResult> => {
    this.commands.push(cmd);
    if (cmd.file === 'dbus-send') {
      this.reloads++;
      return ok();
    }
    const tool = /^k(read|write)config[56]$/.exec(cmd.file);
    if (!tool) return { code: null, stdout: '', stderr: `${cmd.file}: not found` };
    const args = [...cmd.args];
    const take = (flag: string) => {
      const i = args.indexOf(flag);
      if (i < 0) return undefined;
      const [, value] = args.splice(i, 2);
      return value;
    };
    if (take('--file') !== 'kioslaverc' || take('--group') !== 'Proxy Settings') return { code: 1, stdout: '', stderr: 'wrong file or group' };
    const key = take('--key');
    if (!key) return { code: 1, stdout: '', stderr: 'no key' };
    if (tool[1] === 'read') return ok(`${this.values.get(key) ?? ''}\n`);
    if (args[0] === '--delete') this.values.delete(key);
    else if (args.length === 1) this.values.set(key, args[0]!);
    else return { code: 1, stdout: '', stderr: 'bad arguments' };
    return ok();
  };
}
