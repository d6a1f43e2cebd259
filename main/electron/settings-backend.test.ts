import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SettingsFile } from '../../app/settings/settings-file';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { electronStoreBackend } from './settings-backend';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectronModule());

describe('settings on electron-store', () => {
  it("reads the first releases' settings.json in the data folder, migrates it and writes 0600 with a backup", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'electron-store-'));
    const todays = { ...DEFAULT_SETTINGS, socksPort: 19999 };
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(todays));
    const file = new SettingsFile({ dataDir, backend: electronStoreBackend });
    expect((await file.load()).value).toEqual(todays);
    await file.save({ ...todays, theme: 'dark' });
    const written = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ theme: 'dark', socksPort: 19999, __internal__: { migrations: { version: '2.0.0' } } });
    expect(statSync(join(dataDir, 'settings.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json.bak'), 'utf8'))).toMatchObject({ theme: 'system' });
  });
});
