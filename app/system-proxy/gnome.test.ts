import { describe, expect, it } from 'vitest';
import { gnomeApplyCommands, gnomeIsOurs, gnomeReadCommands, gnomeRestoreCommands, gnomeSnapshotSchema, parseGnomeSnapshot } from './gnome';
import { gvariantString, gvariantStringArray, parseGvariantInt, parseGvariantString } from './gvariant';

const target = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };
const g = (...args: string[]) => ({ file: 'gsettings', args });
const USER = ["'manual'", "['localhost', '*.corp']", "'corp'", '3128', "''", '0', "''", '0'];

describe('GNOME gsettings commands', () => {
  it('reads mode, exceptions and each proxy host and port', () => {
    expect(gnomeReadCommands()).toEqual([
      g('get', 'org.gnome.system.proxy', 'mode'),
      g('get', 'org.gnome.system.proxy', 'ignore-hosts'),
      g('get', 'org.gnome.system.proxy.http', 'host'),
      g('get', 'org.gnome.system.proxy.http', 'port'),
      g('get', 'org.gnome.system.proxy.https', 'host'),
      g('get', 'org.gnome.system.proxy.https', 'port'),
      g('get', 'org.gnome.system.proxy.socks', 'host'),
      g('get', 'org.gnome.system.proxy.socks', 'port'),
    ]);
  });

  it('writes hosts and ports as GVariant text and switches the mode to manual last', () => {
    expect(gnomeApplyCommands(target)).toEqual([
      g('set', 'org.gnome.system.proxy.http', 'host', "'127.0.0.1'"),
      g('set', 'org.gnome.system.proxy.http', 'port', '10809'),
      g('set', 'org.gnome.system.proxy.https', 'host', "'127.0.0.1'"),
      g('set', 'org.gnome.system.proxy.https', 'port', '10809'),
      g('set', 'org.gnome.system.proxy.socks', 'host', "'127.0.0.1'"),
      g('set', 'org.gnome.system.proxy.socks', 'port', '10808'),
      g('set', 'org.gnome.system.proxy', 'ignore-hosts', "['localhost', '127.0.0.0/8', '::1']"),
      g('set', 'org.gnome.system.proxy', 'mode', "'manual'"),
    ]);
  });

  it('clears the SOCKS proxy when the app has none', () => {
    const commands = gnomeApplyCommands({ ...target, socksPort: null });
    expect(commands[4]).toEqual(g('set', 'org.gnome.system.proxy.socks', 'host', "''"));
    expect(commands[5]).toEqual(g('set', 'org.gnome.system.proxy.socks', 'port', '0'));
  });

  it('restores every key with the text gsettings printed, the mode last', () => {
    const commands = gnomeRestoreCommands(parseGnomeSnapshot(USER));
    expect(commands).toHaveLength(8);
    expect(commands.at(-1)).toEqual(g('set', 'org.gnome.system.proxy', 'mode', "'manual'"));
    expect(commands[0]).toEqual(g('set', 'org.gnome.system.proxy', 'ignore-hosts', "['localhost', '*.corp']"));
    expect(commands[1]).toEqual(g('set', 'org.gnome.system.proxy.http', 'host', "'corp'"));
  });

  it('a snapshot with a missing key or multi-line garbage is refused', () => {
    expect(() => parseGnomeSnapshot(USER.slice(0, 7))).toThrow(/socks port/);
    const snapshot = parseGnomeSnapshot(USER);
    expect(gnomeSnapshotSchema.safeParse(snapshot).success).toBe(true);
    const tampered = { values: { ...snapshot.values, 'org.gnome.system.proxy mode': "'none'\n'manual'" } };
    expect(gnomeSnapshotSchema.safeParse(tampered).success).toBe(false);
  });

  it('recognises its own settings', () => {
    const ours = parseGnomeSnapshot(["'manual'", '@as []', "'127.0.0.1'", '10809', "''", '0', "''", '0']);
    expect(gnomeIsOurs(ours, target)).toBe(true);
    expect(gnomeIsOurs(parseGnomeSnapshot(USER), target)).toBe(false);
  });
});

describe('GVariant text', () => {
  it('quotes and escapes strings as gsettings expects', () => {
    expect(gvariantString("it's \\ here")).toBe("'it\\'s \\\\ here'");
    expect(parseGvariantString(gvariantString("it's \\ here"))).toBe("it's \\ here");
    expect(parseGvariantString('"it\'s"')).toBe("it's");
    expect(parseGvariantString('manual')).toBeNull();
  });

  it('writes string arrays, and the typed empty array', () => {
    expect(gvariantStringArray(['a', 'b'])).toBe("['a', 'b']");
    expect(gvariantStringArray([])).toBe('@as []');
  });

  it('reads integers with or without a type annotation', () => {
    expect(parseGvariantInt('10809')).toBe(10809);
    expect(parseGvariantInt('int32 0')).toBe(0);
    expect(parseGvariantInt("'10809'")).toBeNull();
  });
});
