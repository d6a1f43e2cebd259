import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../shared/settings';
import type { FileFormat } from '../storage/format';
import { SETTINGS_FORMAT } from './format';
import { SettingsFile } from './settings-file';

const dataDir = () => mkdtempSync(join(tmpdir(), 'settings-file-'));
const onDisk = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const withPorts = (httpPort: number): Settings => ({ ...DEFAULT_SETTINGS, httpPort });

const { mode: _mode, ...fieldsBeforeModes } = DEFAULT_SETTINGS;
/** settings.json as the first releases wrote it: every field, `systemProxy` before modes, no version. */
const todaysFile = { ...fieldsBeforeModes, systemProxy: true, httpPort: 18080, language: 'fa', monitor: { ...DEFAULT_SETTINGS.monitor, workers: 3 } };
/** What this release reads from it. */
const todaysSettings: Settings = { ...DEFAULT_SETTINGS, mode: 'system-proxy', httpPort: 18080, language: 'fa', monitor: todaysFile.monitor };

describe('SettingsFile (conf)', () => {
  it("reads the first releases' file through every step, and records the migration it ran in the file", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(todaysFile));
    const file = new SettingsFile({ dataDir: dir });
    expect(await file.load()).toEqual({ value: todaysSettings, source: 'file', problem: null, setAsideTo: null });
    expect(onDisk(file.path)).toEqual({ ...todaysSettings, __internal__: { migrations: { version: '2.0.0' } } });
  });

  it('runs each step of a longer chain on an older file', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ ...todaysFile, httpPort: undefined, proxyPort: 18081 }));
    // A format whose version 3 renamed `proxyPort` to `httpPort`.
    const format: FileFormat = { version: 3, migrations: { ...SETTINGS_FORMAT.migrations, 3: ({ proxyPort, ...rest }) => ({ ...rest, httpPort: proxyPort }) } };
    const file = new SettingsFile({ dataDir: dir, format });
    expect((await file.load()).value.httpPort).toBe(18081);
    expect(onDisk(file.path)).toMatchObject({ httpPort: 18081, __internal__: { migrations: { version: '3.0.0' } } });
    expect(onDisk(file.path)).not.toHaveProperty('proxyPort');
  });

  it('writes 0600 and keeps the file it replaces as settings.json.bak', async () => {
    const file = new SettingsFile({ dataDir: dataDir() });
    await file.load();
    await file.save(withPorts(1001));
    await file.save(withPorts(1002));
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(onDisk(file.path).httpPort).toBe(1002);
    expect(onDisk(file.backupPath).httpPort).toBe(1001);
  });

  it('makes a missing data folder the owner\'s alone (0700), not conf\'s default 0755', async () => {
    const dir = join(dataDir(), 'new-profile');
    const file = new SettingsFile({ dataDir: dir });
    await file.load();
    await file.save(withPorts(1001));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('sets an unreadable file aside (never deleted) and starts from the last good copy, saying so', async () => {
    const dir = dataDir();
    const first = new SettingsFile({ dataDir: dir, now: () => 0 });
    await first.load();
    await first.save(withPorts(1001));
    await first.save(withPorts(1002));
    writeFileSync(first.path, '{"httpPort": 10');
    const again = new SettingsFile({ dataDir: dir, now: () => 0 });
    const loaded = await again.load();
    expect(loaded).toMatchObject({ value: withPorts(1001), source: 'backup' });
    expect(loaded.problem?.detail).toMatch(/settings\.json was unreadable \(not valid JSON\); the last good copy was used\. It was moved to .*corrupt/);
    expect(readFileSync(loaded.setAsideTo!, 'utf8')).toBe('{"httpPort": 10');
    // The store now stands on the restored copy: the next save works and keeps going.
    await again.save(withPorts(1003));
    expect(onDisk(again.path).httpPort).toBe(1003);
  });

  it('sets aside a file that does not validate, and one of a newer release, and starts from the defaults', async () => {
    for (const [content, reason] of [
      [{ ...todaysFile, httpPort: 'x' }, /unexpected content at httpPort/],
      [{ ...todaysFile, __internal__: { migrations: { version: '7.0.0' } } }, /written by a newer version of the app \(format 7/],
    ] as const) {
      const dir = dataDir();
      writeFileSync(join(dir, 'settings.json'), JSON.stringify(content));
      const loaded = await new SettingsFile({ dataDir: dir }).load();
      expect(loaded).toMatchObject({ value: DEFAULT_SETTINGS, source: 'default' });
      expect(loaded.problem?.detail).toMatch(reason);
      expect(onDisk(loaded.setAsideTo!)).toEqual(content);
      expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toHaveLength(1);
    }
  });

  it('never blocks start-up: a store that cannot open leaves the value in memory, and a save says why', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(todaysFile));
    const file = new SettingsFile({
      dataDir: dir,
      backend: () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    });
    expect((await file.load()).value).toEqual(todaysSettings);
    await expect(file.save(DEFAULT_SETTINGS)).rejects.toThrow(/could not save .*settings\.json: permission denied/);
    expect(onDisk(file.path)).toEqual(todaysFile);
  });
});
