import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../shared/settings';
import type { CoreRouting } from '../core';
import { memoryLogger } from '../log/logger';
import { RoutingService } from '../routing/service';
import { SettingsStore } from '../settings/store';
import { RoutingInForce, settingsOperations } from './routing-in-force';

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
  const store = new SettingsStore({
    load: async () => ({ value: saved, source: 'file', problem: null, setAsideTo: null }),
    save: async (next) => {
      if (diskFull) throw new Error('Could not save settings.json (the disk is full).');
      saved = next;
    },
  });
  await store.load();
  const service = RoutingService.fromData({ problem: 'no region data in this test' }, null);
  const tunnel = new RoutedTunnel();
  const { logger } = memoryLogger('info');
  const routing = new RoutingInForce(service, service.stateFor(DEFAULT_SETTINGS), tunnel, logger);
  store.onChange((next) => routing.follow(next));
  return { store, tunnel, routing, ops: settingsOperations(store, routing), saved: () => saved, fillDisk: () => (diskFull = true) };
}

const ruleIps = (routing: CoreRouting | undefined) => JSON.stringify(routing).match(/\d+\.\d+\.\d+\.\d+\/32/g) ?? [];

describe('routing in force', () => {
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

  it('the window hears the routing view only when it changed', async () => {
    const w = await world();
    expect(w.routing.follow(DEFAULT_SETTINGS)).toBeNull();
    const view = w.routing.follow({ ...DEFAULT_SETTINGS, routing: { ...DEFAULT_SETTINGS.routing, preset: 'ir' } });
    expect(view).toMatchObject({ preset: 'ir', presetInForce: 'global' });
    expect(view?.notices.join(' ')).toMatch(/region data/);
  });
});
