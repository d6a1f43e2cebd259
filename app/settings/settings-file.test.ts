import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../shared/domain/problem';
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

describe('SettingsFile', () => {
  it("reads the first releases' file through every step, and the next save writes this format", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(todaysFile));
    const file = new SettingsFile({ dataDir: dir });
    expect(await file.load()).toEqual({ value: todaysSettings, source: 'file', problem: null, setAsideTo: null });
    await file.save(todaysSettings);
    expect(onDisk(file.path)).toEqual({ version: 2, ...todaysSettings });
  });

  it('reads the files conf and electron-store wrote, by the migration they recorded, and drops the record', async () => {
    // conf ran format 1's step only: `systemProxy` is still there, so step 2 runs now.
    const confAtOne = { ...todaysFile, __internal__: { migrations: { version: '1.0.0' } } };
    // conf ran both steps: the fields are today's.
    const confAtTwo = { ...todaysSettings, __internal__: { migrations: { version: '2.0.0' } } };
    for (const content of [confAtOne, confAtTwo]) {
      const dir = dataDir();
      writeFileSync(join(dir, 'settings.json'), JSON.stringify(content));
      const file = new SettingsFile({ dataDir: dir, defaultMode: 'proxy' });
      expect(await file.load()).toEqual({ value: todaysSettings, source: 'file', problem: null, setAsideTo: null });
      await file.save(todaysSettings);
      expect(onDisk(file.path)).not.toHaveProperty('__internal__');
      expect(onDisk(file.backupPath)).toEqual(content);
    }
  });

  it('runs each step of a longer chain on an older file', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ ...todaysFile, httpPort: undefined, proxyPort: 18081 }));
    // A format whose version 3 renamed `proxyPort` to `httpPort`.
    const format: FileFormat = { ...SETTINGS_FORMAT, version: 3, migrations: { ...SETTINGS_FORMAT.migrations, 3: ({ proxyPort, ...rest }) => ({ ...rest, httpPort: proxyPort }) } };
    const file = new SettingsFile({ dataDir: dir, format });
    const loaded = await file.load();
    expect(loaded.value.httpPort).toBe(18081);
    await file.save(loaded.value);
    expect(onDisk(file.path)).toMatchObject({ version: 3, httpPort: 18081 });
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

  it("makes a missing data folder the owner's alone (0700)", async () => {
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
    expect(loaded.problem?.topic).toEqual({ kind: 'file-unreadable', file: 'settings.json', recovered: 'backup' });
    expect(loaded.problem?.detail).toMatch(/settings\.json was unreadable \(not valid JSON\); the last good copy was used\. It was moved to .*corrupt/);
    expect(readFileSync(loaded.setAsideTo!, 'utf8')).toBe('{"httpPort": 10');
    await again.save(withPorts(1003));
    expect(onDisk(again.path).httpPort).toBe(1003);
  });

  it('sets aside a file that does not validate, and one of a newer release, and starts from the defaults', async () => {
    for (const [content, reason] of [
      [{ ...todaysFile, httpPort: 'x' }, /unexpected content at httpPort/],
      [{ ...todaysFile, version: 7 }, /written by a newer version of the app \(format 7/],
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

  it('a save that cannot happen says why, keeps the file, and puts its problem in the sink', async () => {
    const dir = dataDir();
    const raised: { problem: Problem; severity: string }[] = [];
    const file = new SettingsFile({ dataDir: dir, problems: { raise: (problem, severity) => raised.push({ problem, severity }) } });
    await file.load();
    // A folder where the file must go.
    mkdirSync(file.path);
    await expect(file.save(DEFAULT_SETTINGS)).rejects.toThrow(/could not save .*settings\.json: a folder is in the way/);
    expect(raised).toEqual([{ problem: expect.objectContaining({ topic: { kind: 'save-failed', file: 'settings.json' } }), severity: 'error' }]);
  });
});
