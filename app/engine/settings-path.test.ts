import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS, type Settings, settingsPatchSchema, settingsSchema } from '../../shared/settings';
import type { CoreRouting } from '../core';
import { memoryLogger } from '../log/logger';
import { RoutingService } from '../routing/service';
import { SettingsStore } from '../settings/store';
import { RoutingInForce } from './routing-in-force';
import type { SettingsTargets } from './settings-changes';
import { SettingsPath } from './settings-path';

/** A connected tunnel's routing: every routing it was restarted with; `refuse` makes the core refuse one. */
class RoutedTunnel {
  readonly applied: (CoreRouting | undefined)[] = [];
  refuse: string | null = null;
  async setRouting(routing: CoreRouting | undefined): Promise<boolean> {
    if (this.refuse) throw new Error(this.refuse);
    this.applied.push(routing);
    return true;
  }
}

const directRule = (ip: string) => ({ routing: { ...DEFAULT_SETTINGS.routing, rules: [{ ip: [ip], domain: [], outbound: 'direct' as const }] } });

async function world() {
  let saved: Settings = DEFAULT_SETTINGS;
  let diskFull = false;
  const saves: Settings[] = [];
  const store = new SettingsStore({
    load: async () => ({ value: saved, source: 'file', problem: null, setAsideTo: null }),
    save: async (next) => {
      if (diskFull) throw new Error('Could not save settings.json (the disk is full).');
      saved = next;
      saves.push(next);
    },
  });
  await store.load();
  const service = RoutingService.fromData({ problem: 'no region data in this test' }, null);
  const tunnel = new RoutedTunnel();
  const { logger } = memoryLogger('info');
  const routing = new RoutingInForce(service, service.stateFor(DEFAULT_SETTINGS), tunnel, logger);
  const heard: string[] = [];
  const published = { settings: [] as Settings[], routing: [] as string[] };
  let monitorThrows = false;
  const targets: SettingsTargets = {
    capture: { setMode: (mode) => heard.push(`mode ${mode}`) },
    tunnel: null,
    restartTunnel: async () => void heard.push('restart'),
    rewriteProbes: () => heard.push('probes rewritten'),
    setLogLevel: () => undefined,
    monitor: {
      setSettings: () => {
        if (monitorThrows) throw new Error('cannot rebind the proxy port');
      },
    },
    auto: { reconfigure: () => undefined },
    reachability: { refresh: () => undefined },
    chainsChanged: (change) => heard.push(`chains of ${change.changed.join(', ')}`),
    afterEach: () => heard.push('after each'),
    warn: (line) => heard.push(line),
  };
  const path = new SettingsPath({
    store,
    routing,
    context: () => ({ currentServer: null }),
    targets,
    publish: { settings: (next) => published.settings.push(next), routing: (view) => published.routing.push(view.presetInForce) },
  });
  return {
    store,
    tunnel,
    routing,
    heard,
    published,
    saves,
    ops: path.handlers(),
    saved: () => saved,
    fillDisk: () => (diskFull = true),
    breakMonitor: () => (monitorThrows = true),
  };
}

const ruleIps = (routing: CoreRouting | undefined) => JSON.stringify(routing).match(/\d+\.\d+\.\d+\.\d+\/32/g) ?? [];

describe('the settings path', () => {
  it('a routing change runs on the tunnel once, before it is saved', async () => {
    const w = await world();
    await w.ops.setSettings(directRule('192.0.2.7/32'));
    expect(w.tunnel.applied.map(ruleIps)).toEqual([['192.0.2.7/32']]);
    expect(w.saved().routing.rules).toHaveLength(1);
  });

  it('a routing the core refuses is not saved, and the error says why', async () => {
    const w = await world();
    w.tunnel.refuse = 'the core refused the routing: invalid rule';
    await expect(w.ops.setSettings(directRule('192.0.2.7/32'))).rejects.toThrow('the core refused the routing: invalid rule');
    expect(w.saved().routing.rules).toEqual([]);
    expect(w.store.get().routing.rules).toEqual([]);
  });

  it('when the save fails, the tunnel goes back to the routing it had', async () => {
    const w = await world();
    await w.ops.setSettings(directRule('192.0.2.7/32'));
    w.fillDisk();
    await expect(w.ops.setSettings(directRule('198.51.100.9/32'))).rejects.toThrow('the disk is full');
    expect(w.tunnel.applied.map(ruleIps)).toEqual([['192.0.2.7/32'], ['198.51.100.9/32'], ['192.0.2.7/32']]);
    expect(w.saved().routing.rules[0]?.ip).toEqual(['192.0.2.7/32']);
  });

  it('a patch that does not touch routing, or is refused, leaves the tunnel alone', async () => {
    const w = await world();
    await w.ops.setSettings({ logLevel: 'debug' });
    await expect(w.ops.setSettings(directRule('192.0.2.7/33'))).rejects.toThrow(/prefix length outside 0-32/);
    expect(w.tunnel.applied).toEqual([]);
  });

  it('a change is validated once, saved once and told to the window once; its routing view only when the routing changed', async () => {
    const w = await world();
    await w.ops.setSettings({ logLevel: 'debug', chains: { a: 'b' } });
    expect(w.saves).toHaveLength(1);
    expect(w.published.settings.map((s) => s.logLevel)).toEqual(['debug']);
    expect(w.published.routing).toEqual([]);
    expect(w.heard).toEqual(['chains of a', 'after each']);
    await w.ops.setSettings({ routing: { ...DEFAULT_SETTINGS.routing, preset: 'ir' } });
    expect(w.saves).toHaveLength(2);
    expect(w.published.routing).toEqual(['global']);
    expect(w.published.settings).toHaveLength(2);
  });

  it('a routing change is parsed by the schema once, and the whole settings not again', async () => {
    const w = await world();
    const patchParses = vi.spyOn(settingsPatchSchema, 'safeParse');
    const wholeParses = vi.spyOn(settingsSchema, 'safeParse');
    try {
      await w.ops.setSettings(directRule('192.0.2.7/32'));
      expect(patchParses).toHaveBeenCalledTimes(1);
      expect(wholeParses).not.toHaveBeenCalled();
    } finally {
      patchParses.mockRestore();
      wholeParses.mockRestore();
    }
  });

  it('a refused patch saves nothing, tells nobody and names the field', async () => {
    const w = await world();
    await expect(w.ops.setSettings({ httpPort: 70000 })).rejects.toThrow(/invalid setting httpPort/);
    expect(w.saves).toEqual([]);
    expect(w.published.settings).toEqual([]);
    expect(w.heard).toEqual([]);
  });

  it('a failed save reaches no service and not the window', async () => {
    const w = await world();
    w.fillDisk();
    await expect(w.ops.setSettings({ mode: 'system-wide' })).rejects.toThrow('the disk is full');
    expect(w.store.get().mode).toBe('proxy');
    expect(w.heard).toEqual([]);
    expect(w.published.settings).toEqual([]);
  });

  it('changes made at once are applied one on the other', async () => {
    const w = await world();
    await Promise.all([w.ops.setSettings({ language: 'fa' }), w.ops.setSettings({ theme: 'dark' }), w.ops.setSettings({ monitor: { workers: 2 } })]);
    expect(w.saved()).toMatchObject({ language: 'fa', theme: 'dark', monitor: { workers: 2 } });
    expect(w.published.settings.map((s) => [s.language, s.theme])).toEqual([['fa', 'system'], ['fa', 'dark'], ['fa', 'dark']]);
  });

  it('a service that throws on the new settings neither fails the saved change nor keeps the window from hearing it', async () => {
    const w = await world();
    w.breakMonitor();
    await expect(w.ops.setSettings({ theme: 'dark' })).resolves.toMatchObject({ theme: 'dark' });
    expect(w.saved().theme).toBe('dark');
    expect(w.heard).toContain('a service could not follow the settings change: Error: cannot rebind the proxy port');
    expect(w.published.settings.map((s) => s.theme)).toEqual(['dark']);
  });
});

describe('routing in force as the rule-set copies change', () => {
  it('the window hears the routing view only when it changed', async () => {
    const w = await world();
    expect(w.routing.ruleSetsChanged(DEFAULT_SETTINGS)).toBeNull();
    const view = w.routing.ruleSetsChanged({ ...DEFAULT_SETTINGS, routing: { ...DEFAULT_SETTINGS.routing, preset: 'ir' } });
    expect(view).toMatchObject({ preset: 'ir', presetInForce: 'global' });
    expect(view?.notices.join(' ')).toMatch(/region data/);
  });
});
