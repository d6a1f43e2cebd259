import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { validateSettingsPatch } from './settings';

const NOW = 1_000_000;

describe('settings slice', () => {
  it('sends a valid change as written and takes the host’s settings', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const result = await store.getState().saveSettings({ language: 'fa', monitor: { workers: 4 } });
    expect(result.ok).toBe(true);
    expect(client.callsTo('setSettings')).toEqual([{ language: 'fa', monitor: { workers: 4 } }]);
    expect(store.getState().settings.language).toBe('fa');
    expect(store.getState().settings.monitor.workers).toBe(4);
    expect(store.getState().settings.monitor.intervalMs).toBe(DEFAULT_SETTINGS.monitor.intervalMs);
  });

  it.each([
    [{ monitor: { workers: 0 } }, 'monitor.workers'],
    [{ monitor: { urls: ['not a url'] } }, 'monitor.urls.0'],
    [{ monitor: { urls: [] } }, 'monitor.urls'],
    [{ stallThresholdMs: 10 }, 'stallThresholdMs'],
    [{ theme: 'purple' }, 'theme'],
    [{ language: 'de' }, 'language'],
    [{ corePath: '' }, 'corePath'],
    [{ unknownField: true }, 'settings'],
  ])('refuses %j before sending it (error at %s)', async (patch, path) => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const result = await store.getState().saveSettings(patch as never);
    expect(result.ok).toBe(false);
    expect(!result.ok && Object.keys(result.fieldErrors)).toContain(path);
    expect(client.callsTo('setSettings')).toEqual([]);
  });

  it('shows the host’s refusal', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.failNext('setSettings', 'port 10809 is in use');
    expect(await store.getState().saveSettings({ mode: 'system-proxy' })).toEqual({ ok: false, error: 'port 10809 is in use', fieldErrors: {} });
    expect(store.getState().settings.mode).toBe('proxy');
  });

  it('follows the host’s settings events', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.emit('settings', { ...DEFAULT_SETTINGS, theme: 'dark' });
    expect(store.getState().settings.theme).toBe('dark');
  });

  it('validates a patch without applying defaults to it', async () => {
    expect(await validateSettingsPatch({ monitor: { workers: 3 } })).toEqual({ ok: true, patch: { monitor: { workers: 3 } } });
  });

  it('asks the host for the cores; a list on screen stays while it is asked again, a failure keeps the host’s words', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    expect(store.getState().coreList).toEqual({ state: 'idle' });
    const first = store.getState().loadCores();
    expect(store.getState().coreList).toEqual({ state: 'loading' });
    await first;
    const ready = store.getState().coreList;
    expect(ready.state === 'ready' && ready.list.cores.map((c) => [c.name, c.role])).toEqual([
      ['v2ray', 'main'],
      ['sing-box', 'carrier'],
      ['xray', 'available'],
    ]);
    client.failNext('listCores', 'the engine is stopping');
    const again = store.getState().loadCores();
    expect(store.getState().coreList.state).toBe('ready');
    await again;
    expect(store.getState().coreList).toEqual({ state: 'failed', error: 'the engine is stopping' });
    expect(client.callsTo('listCores')).toEqual([{}, {}]);
  });
});
