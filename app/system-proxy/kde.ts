import { z } from 'zod';
import type { ProxyBackend } from './backend';
import { type Command, type CommandRunner, command, runAll, runChecked } from './command';
import { LOOPBACK_BYPASS, type ProxyTarget } from './target';

/**
 * KDE Plasma keeps the proxy in `kioslaverc`, group "Proxy Settings", written with `kwriteconfig5`
 * (Plasma 5) or `kwriteconfig6` (Plasma 6). Manual proxies are "scheme://host port" (a space before
 * the port, as KDE's own settings page writes them); ProxyType 1 means "use the manual proxies".
 * Running KIO workers re-read the file when told so over D-Bus.
 */
export type KdeVersion = 5 | 6;
const FILE = 'kioslaverc';
const GROUP = 'Proxy Settings';
export const KDE_KEYS = ['ProxyType', 'httpProxy', 'httpsProxy', 'socksProxy', 'NoProxyFor'] as const;
type KdeKey = (typeof KDE_KEYS)[number];

/** Each key's value, or null when it was unset (kreadconfig prints nothing for unset and empty alike). */
export const kdeSnapshotSchema = z
  .object({ values: z.record(z.enum(KDE_KEYS), z.string().max(4096).nullable()) })
  .strict();
export type KdeSnapshot = z.infer<typeof kdeSnapshotSchema>;

const readTool = (v: KdeVersion) => `kreadconfig${v}`;
const writeTool = (v: KdeVersion) => `kwriteconfig${v}`;

export function kdeReadCommands(version: KdeVersion): Command[] {
  return KDE_KEYS.map((key) => command(readTool(version), '--file', FILE, '--group', GROUP, '--key', key));
}

function write(version: KdeVersion, key: KdeKey, value: string | null): Command {
  return value === null
    ? command(writeTool(version), '--file', FILE, '--group', GROUP, '--key', key, '--delete')
    : command(writeTool(version), '--file', FILE, '--group', GROUP, '--key', key, value);
}

/** Tells running KIO workers to re-read kioslaverc (the signal KDE's settings page sends). */
export function kdeReloadCommand(): Command {
  return command('dbus-send', '--type=signal', '/KIO/Scheduler', 'org.kde.KIO.Scheduler.reparseSlaveConfiguration', 'string:');
}

export function kdeProxyValue(scheme: 'http' | 'socks', host: string, port: number): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return `${scheme}://${bracketed} ${port}`;
}

export function kdeApplyCommands(target: ProxyTarget, version: KdeVersion): Command[] {
  const http = kdeProxyValue('http', target.host, target.httpPort);
  return [
    write(version, 'httpProxy', http),
    write(version, 'httpsProxy', http),
    write(version, 'socksProxy', target.socksPort === null ? '' : kdeProxyValue('socks', target.host, target.socksPort)),
    write(version, 'NoProxyFor', LOOPBACK_BYPASS.join(',')),
    write(version, 'ProxyType', '1'),
  ];
}

export function kdeRestoreCommands(previous: KdeSnapshot, version: KdeVersion): Command[] {
  const ordered: KdeKey[] = ['httpProxy', 'httpsProxy', 'socksProxy', 'NoProxyFor', 'ProxyType'];
  return ordered.map((key) => write(version, key, previous.values[key]));
}

export function parseKdeSnapshot(outputs: readonly string[]): KdeSnapshot {
  const entries = KDE_KEYS.map((key, i) => {
    const text = (outputs[i] ?? '').replace(/\r?\n$/, '');
    return [key, text === '' ? null : text] as const;
  });
  return { values: Object.fromEntries(entries) as KdeSnapshot['values'] };
}

export function kdeIsOurs(current: KdeSnapshot, target: ProxyTarget): boolean {
  return current.values.ProxyType === '1' && current.values.httpProxy === kdeProxyValue('http', target.host, target.httpPort);
}

async function readKde(run: CommandRunner, version: KdeVersion): Promise<KdeSnapshot> {
  const outputs: string[] = [];
  for (const cmd of kdeReadCommands(version)) outputs.push(await runChecked(run, cmd));
  return parseKdeSnapshot(outputs);
}

export function kdeBackend(version: KdeVersion): ProxyBackend<KdeSnapshot> {
  const reload = async (run: CommandRunner) => {
    // Without a session bus only already-running KIO workers miss the change; new ones read the file.
    await run(kdeReloadCommand());
  };
  return {
    id: 'kde',
    snapshotSchema: kdeSnapshotSchema,
    read: (run) => readKde(run, version),
    async apply(run, target) {
      await runAll(run, kdeApplyCommands(target, version));
      await reload(run);
    },
    async restore(run, previous, applied) {
      if (!kdeIsOurs(await readKde(run, version), applied)) return { restored: [], leftAlone: ['KDE'], warnings: [] };
      await runAll(run, kdeRestoreCommands(previous, version));
      await reload(run);
      return { restored: ['KDE'], leftAlone: [], warnings: [] };
    },
  };
}
