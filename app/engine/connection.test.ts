import { describe, expect, it } from 'vitest';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import { profileFromTable } from '../core/testing/profile';
import { connectionHandlers, connectionStateOf } from './connection';
import { ServerCatalog } from './server-catalog';
import { FakeTunnel } from './testing/fake-tunnel';
import { subscriptionOf, vlessServer } from './testing/servers';
import { TunnelDriver } from './tunnel-driver';

function world(autoOn: SubscriptionId | null = null, delays: Record<ServerId, number> = {}) {
  const tunnel = new FakeTunnel();
  const catalog = new ServerCatalog(profileFromTable('v2ray', '4.34.0'));
  catalog.rebuild([
    subscriptionOf('s1', [vlessServer('a', 's1'), vlessServer('reality', 's1', {}, true)]),
    subscriptionOf('s2', [vlessServer('b', 's2'), vlessServer('chained', 's2', { via: 'a' })]),
  ]);
  const driver = new TunnelDriver(() => tunnel, catalog.index, () => 'no core');
  const manual: ServerId[] = [];
  const tested: ServerId[] = [];
  const handlers = connectionHandlers({
    driver,
    auto: { snapshot: () => ({ subscriptionId: autoOn, excluded: {} }), manualConnect: (id) => manual.push(id) },
    catalog,
    delayOf: (id) => delays[id] ?? null,
    testConnected: (id) => tested.push(id),
    state: () => connectionStateOf(tunnel, ''),
  });
  return { tunnel, driver, handlers, manual, tested };
}

describe('connection handlers', () => {
  it('a server the user names: connects to it, Auto steps aside, and the server is tested at once', async () => {
    const w = world('s2');
    const state = await w.handlers.connect({ serverId: 'a' });
    expect(state).toMatchObject({ state: 'connected', serverId: 'a', httpProxy: 'http://127.0.0.1:10809' });
    expect(w.manual).toEqual(['a']);
    expect(w.tested).toEqual(['a']);
  });

  it('Connect without a server uses Auto\'s subscription, and Auto is not told the user chose', async () => {
    const w = world('s2');
    expect((await w.handlers.connect({})).serverId).toBe('b');
    expect(w.manual).toEqual([]);
  });

  it('Connect without a server takes the fastest server that answered, never one the core cannot run', async () => {
    const w = world(null, { reality: 5, b: 90, a: 140 });
    expect((await w.handlers.connect({})).serverId).toBe('b');
  });

  it('a chained server connects through its upstream', async () => {
    const w = world();
    await w.handlers.connect({ serverId: 'chained' });
    expect(w.tunnel.starts).toEqual([{ serverId: 'chained', via: 'a' }]);
  });

  it('refuses, in words and with a code the window translates, a server the core cannot run, one that is gone, and Connect with nothing to use', async () => {
    const w = world();
    await expect(w.handlers.connect({ serverId: 'reality' })).rejects.toMatchObject({ code: 'server-unsupported', message: 'not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0' });
    await expect(w.handlers.connect({ serverId: 'gone' })).rejects.toMatchObject({ code: 'no-such-server', message: 'no server with id "gone" (it may have left its subscription)' });
    expect(w.tunnel.starts).toEqual([]);
    expect(w.manual).toEqual([]);

    const empty = new ServerCatalog(null);
    const driver = new TunnelDriver(() => null, empty.index, () => 'no core');
    const none = connectionHandlers({ driver, auto: { snapshot: () => ({ subscriptionId: null, excluded: {} }), manualConnect: () => undefined }, catalog: empty, delayOf: () => null, testConnected: () => undefined, state: () => connectionStateOf(null, 'no core') });
    await expect(none.connect({})).rejects.toMatchObject({ code: 'no-server-chosen', message: 'choose a server to connect to, or turn Auto on for a subscription' });
  });

  it('a failed connect says why and tests nothing', async () => {
    const w = world();
    w.tunnel.refuse = 'the server refused the handshake';
    await expect(w.handlers.connect({ serverId: 'b' })).rejects.toThrow('the server refused the handshake');
    expect(w.tested).toEqual([]);
  });

  it('Disconnect brings the tunnel down; the next Connect returns to the same server', async () => {
    const w = world();
    await w.handlers.connect({ serverId: 'b' });
    expect((await w.handlers.disconnect({})).state).toBe('disconnected');
    expect((await w.handlers.connect({})).serverId).toBe('b');
  });

  it('without a core the connection says why nothing can connect', () => {
    expect(connectionStateOf(null, 'no v2ray or Xray core was found')).toMatchObject({ state: 'disconnected', error: 'no v2ray or Xray core was found' });
  });
});
