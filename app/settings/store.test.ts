import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EngineRefusal } from '../../shared/domain/refusal';
import { DEFAULT_SETTINGS, type SettingsPatch } from '../../shared/settings';
import { SettingsFile } from './settings-file';
import { SettingsStore } from './store';

const dir = () => mkdtempSync(join(tmpdir(), 'settings-'));
/** A change as the engine's settings path makes it, without the effects between the steps. */
const update = async (store: SettingsStore, patch: SettingsPatch) => store.save(store.validate(patch));

describe('SettingsStore', () => {
  it('starts from the defaults and persists a patch (0600)', async () => {
    const d = dir();
    const store = new SettingsStore(new SettingsFile({ dataDir: d }));
    expect(await store.load()).toEqual(DEFAULT_SETTINGS);
    await update(store, { stallThresholdMs: 8000, monitor: { workers: 4 } });
    const again = new SettingsStore(new SettingsFile({ dataDir: d }));
    const loaded = await again.load();
    expect(loaded.stallThresholdMs).toBe(8000);
    expect(loaded.monitor.workers).toBe(4);
    expect(loaded.monitor.intervalMs).toBe(DEFAULT_SETTINGS.monitor.intervalMs);
    expect(statSync(join(d, 'settings.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses an invalid patch whole, naming the field, and keeps the old value', async () => {
    const store = new SettingsStore(new SettingsFile({ dataDir: dir() }));
    await store.load();
    await expect(update(store, { httpPort: 70000, stallThresholdMs: 9000 })).rejects.toThrow(/invalid setting httpPort/);
    await expect(update(store, { monitor: { urls: [] } })).rejects.toThrow(/invalid setting monitor\.urls/);
    expect(store.get().stallThresholdMs).toBe(5000);
  });

  it('refuses with the problem as a topic for the window to word, and the English for the log', async () => {
    const store = new SettingsStore(new SettingsFile({ dataDir: dir() }));
    await store.load();
    const refusal = await update(store, { routing: { ...DEFAULT_SETTINGS.routing, rules: [{ ip: ['127.0.0.0/33'], domain: [], outbound: 'direct' }] } }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(EngineRefusal);
    expect(refusal).toMatchObject({
      code: 'invalid-setting',
      message: 'invalid setting routing, rule 1, ip 1: "127.0.0.0/33" has a prefix length outside 0-32',
      validation: { topic: 'prefix-length', params: { value: '127.0.0.0/33', max: 32 }, path: ['routing', 'rules', 0, 'ip', 0] },
    });
    // A rule naming a group that does not exist is the engine's own check: it comes as a topic too.
    const unknownGroup = await update(store, { routing: { ...DEFAULT_SETTINGS.routing, rules: [{ domain: ['x.ir'], ip: [], outbound: 'group:None' }] } }).catch((error: unknown) => error);
    expect(unknownGroup).toMatchObject({ code: 'invalid-setting', validation: { topic: 'unknown-group', params: { outbound: 'group:None' }, path: ['routing', 'rules', 0] } });
  });

  it('starts with defaults from a garbage settings file, sets it aside and says so', async () => {
    const d = dir();
    writeFileSync(join(d, 'settings.json'), '\u0000\u0001garbage');
    const store = new SettingsStore(new SettingsFile({ dataDir: d }));
    expect(await store.load()).toEqual(DEFAULT_SETTINGS);
    expect(store.problem?.detail).toMatch(/unreadable/);
    expect(readdirSync(d).some((n) => n.startsWith('settings.json.corrupt-'))).toBe(true);
  });

  it('a change that cannot be saved changes nothing, and the next change does not carry it to disk', async () => {
    const d = dir();
    const store = new SettingsStore(new SettingsFile({ dataDir: d }));
    await store.load();
    await update(store, { language: 'fa' });
    // A folder where the file must go: the save fails.
    const file = join(d, 'settings.json');
    rmSync(file);
    mkdirSync(file);
    await expect(update(store, { language: 'ru' })).rejects.toThrow(/could not save .*settings\.json: a folder is in the way/);
    expect(store.get().language).toBe('fa');
    rmdirSync(file);
    await update(store, { theme: 'dark' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ language: 'fa', theme: 'dark' });
  });

  it('a first start takes the host’s default mode; a file from before modes keeps what the user had', async () => {
    const fresh = new SettingsStore(new SettingsFile({ dataDir: dir(), defaultMode: 'system-proxy' }));
    expect((await fresh.load()).mode).toBe('system-proxy');

    const d = dir();
    writeFileSync(join(d, 'settings.json'), JSON.stringify({ systemProxy: true, httpPort: 10900 }));
    const old = new SettingsStore(new SettingsFile({ dataDir: d, defaultMode: 'proxy' }));
    expect(await old.load()).toMatchObject({ mode: 'system-proxy', httpPort: 10900 });
    expect(old.problem).toBeNull();
    await update(old, { language: 'ru' });
    const written = JSON.parse(readFileSync(join(d, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(written.mode).toBe('system-proxy');
    expect('systemProxy' in written).toBe(false);
  });
});
