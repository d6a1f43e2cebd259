import { z } from 'zod';
import type { ProxyBackend } from './backend';
import { type Command, type CommandRunner, command, runAll, runChecked } from './command';
import { gvariantString, gvariantStringArray, looksLikeGvariant, parseGvariantInt, parseGvariantString } from './gvariant';
import { LOOPBACK_BYPASS, type ProxyTarget } from './target';

/**
 * GNOME (and every desktop that reads GSettings: Cinnamon, Budgie, Unity, GTK apps elsewhere):
 * `org.gnome.system.proxy` holds the mode and the exceptions, its `.http`/`.https`/`.socks`
 * children the host and port of each proxy.
 */
const ROOT = 'org.gnome.system.proxy';
export const GNOME_KEY_IDS = [
  `${ROOT} mode`,
  `${ROOT} ignore-hosts`,
  `${ROOT}.http host`,
  `${ROOT}.http port`,
  `${ROOT}.https host`,
  `${ROOT}.https port`,
  `${ROOT}.socks host`,
  `${ROOT}.socks port`,
] as const;
type GnomeKeyId = (typeof GNOME_KEY_IDS)[number];
const splitId = (id: GnomeKeyId) => id.split(' ') as [schema: string, key: string];

/** Each key's value as `gsettings get` printed it (GVariant text, fed back to `gsettings set` on restore). */
export const gnomeSnapshotSchema = z
  .object({ values: z.record(z.enum(GNOME_KEY_IDS), z.string().refine(looksLikeGvariant, 'not a printed GSettings value')) })
  .strict();
export type GnomeSnapshot = z.infer<typeof gnomeSnapshotSchema>;

export function gnomeReadCommands(gsettings = 'gsettings'): Command[] {
  return GNOME_KEY_IDS.map((id) => command(gsettings, 'get', ...splitId(id)));
}

function set(gsettings: string, schema: string, key: string, value: string): Command {
  return command(gsettings, 'set', schema, key, value);
}

/** Host and ports first, the mode last, so no application sees "manual" with a half-written proxy. */
export function gnomeApplyCommands(target: ProxyTarget, gsettings = 'gsettings'): Command[] {
  const host = gvariantString(target.host);
  const http = String(target.httpPort);
  return [
    set(gsettings, `${ROOT}.http`, 'host', host),
    set(gsettings, `${ROOT}.http`, 'port', http),
    set(gsettings, `${ROOT}.https`, 'host', host),
    set(gsettings, `${ROOT}.https`, 'port', http),
    set(gsettings, `${ROOT}.socks`, 'host', target.socksPort === null ? "''" : host),
    set(gsettings, `${ROOT}.socks`, 'port', String(target.socksPort ?? 0)),
    set(gsettings, ROOT, 'ignore-hosts', gvariantStringArray(LOOPBACK_BYPASS)),
    set(gsettings, ROOT, 'mode', gvariantString('manual')),
  ];
}

/** Every key back to its printed value; the mode last again. */
export function gnomeRestoreCommands(previous: GnomeSnapshot, gsettings = 'gsettings'): Command[] {
  const ordered = [...GNOME_KEY_IDS.slice(1), GNOME_KEY_IDS[0]];
  return ordered.map((id) => set(gsettings, ...splitId(id), previous.values[id]));
}

export function parseGnomeSnapshot(outputs: readonly string[]): GnomeSnapshot {
  const entries = GNOME_KEY_IDS.map((id, i) => {
    const text = outputs[i]?.trim();
    if (text === undefined || !looksLikeGvariant(text)) throw new Error(`gsettings printed nothing usable for ${id}`);
    return [id, text] as const;
  });
  return { values: Object.fromEntries(entries) as GnomeSnapshot['values'] };
}

export function gnomeIsOurs(current: GnomeSnapshot, target: ProxyTarget): boolean {
  const v = current.values;
  return (
    parseGvariantString(v[`${ROOT} mode`]) === 'manual' &&
    parseGvariantString(v[`${ROOT}.http host`]) === target.host &&
    parseGvariantInt(v[`${ROOT}.http port`]) === target.httpPort
  );
}

async function readGnome(run: CommandRunner, gsettings: string): Promise<GnomeSnapshot> {
  const outputs: string[] = [];
  for (const cmd of gnomeReadCommands(gsettings)) outputs.push(await runChecked(run, cmd));
  return parseGnomeSnapshot(outputs);
}

export function gnomeBackend(gsettings = 'gsettings'): ProxyBackend<GnomeSnapshot> {
  return {
    id: 'gnome',
    snapshotSchema: gnomeSnapshotSchema,
    read: (run) => readGnome(run, gsettings),
    apply: (run, target) => runAll(run, gnomeApplyCommands(target, gsettings)),
    async restore(run, previous, applied) {
      if (!gnomeIsOurs(await readGnome(run, gsettings), applied)) return { restored: [], leftAlone: ['GNOME'], warnings: [] };
      await runAll(run, gnomeRestoreCommands(previous, gsettings));
      return { restored: ['GNOME'], leftAlone: [], warnings: [] };
    },
  };
}
