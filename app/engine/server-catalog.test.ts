import { describe, expect, it } from 'vitest';
import { profileFromTable, SING_BOX_HERE_TAGS } from '../core/testing/profile';
import { FRONT_GONE } from '../core/chains';
import { subscriptionFromWire, subscriptionToWire } from '../../shared/ipc/wire';
import { ServerCatalog } from './server-catalog';
import { subscriptionOf, vlessServer } from './testing/servers';

const v2ray434 = profileFromTable('v2ray', '4.34.0');
const xray18 = profileFromTable('xray', '1.8.24');

const list = [
  subscriptionOf('s1', [vlessServer('a', 's1'), vlessServer('r', 's1', {}, true)]),
  // A chain whose upstream cannot run on v2ray cannot run either.
  subscriptionOf('s2', [vlessServer('c', 's2', { via: 'r' }), vlessServer('d', 's2')]),
];

describe('ServerCatalog', () => {
  it('says which servers the core cannot run, a chain through one of them included', () => {
    const catalog = new ServerCatalog(v2ray434);
    catalog.rebuild(list);
    expect(Object.keys(catalog.unsupported()).sort()).toEqual(['c', 'r']);
    expect(catalog.unsupported().r).toBe('not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0');
    expect(catalog.unsupported().c).toMatch(/its upstream server Server r cannot run/);

    const onXray = new ServerCatalog(xray18);
    onXray.rebuild(list);
    expect(onXray.unsupported()).toEqual({});
  });

  it('a server only sing-box carries is not unsupported: it is carried, and its details say why the main core cannot', () => {
    const singBox = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
    const catalog = new ServerCatalog(v2ray434, [singBox]);
    catalog.rebuild(list);
    expect(catalog.unsupported()).toEqual({});
    expect(catalog.carried()).toEqual({
      r: 'carried by sing-box 1.14.1: not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0',
      c: expect.stringMatching(/^carried by sing-box 1.14.1: not supported by v2ray 4.34.0: its upstream server Server r cannot run/) as unknown as string,
    });
    expect(new ServerCatalog(xray18, [singBox]).carried()).toEqual({});
  });

  it('the tunnel runs a carried server (a group may take it) but not one no core runs', () => {
    const singBox = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
    const carried = new ServerCatalog(v2ray434, [singBox]);
    carried.rebuild(list);
    expect(['a', 'r', 'c', 'd'].map((id) => carried.runsInTunnel(id))).toEqual([true, true, true, true]);
    const alone = new ServerCatalog(v2ray434);
    alone.rebuild(list);
    expect(['a', 'r', 'c', 'd'].map((id) => alone.runsInTunnel(id))).toEqual([true, false, false, true]);
  });

  it('without a core marks no server (the missing core is said once, not per server)', () => {
    const catalog = new ServerCatalog(null);
    catalog.rebuild(list);
    expect(catalog.unsupported()).toEqual({});
  });

  it('follows the list: Auto sees subscriptions and servers in the user\'s order, and a removed server is gone', () => {
    const catalog = new ServerCatalog(v2ray434);
    catalog.rebuild(list);
    expect(catalog.autoView()).toEqual([
      { id: 's1', serverIds: ['a', 'r'] },
      { id: 's2', serverIds: ['c', 'd'] },
    ]);
    catalog.rebuild([subscriptionOf('s2', [vlessServer('d', 's2')]), subscriptionOf('s1', [vlessServer('a', 's1')])]);
    expect(catalog.autoView()).toEqual([
      { id: 's2', serverIds: ['d'] },
      { id: 's1', serverIds: ['a'] },
    ]);
    expect(catalog.index.get('c')).toBeUndefined();
    expect(catalog.unsupported()).toEqual({});
  });

  it('the window’s list is each server as a row shows it, and a rebuild replaces it in its wire form too', () => {
    const catalog = new ServerCatalog(xray18, [], () => ({ d: 'a' }));
    catalog.rebuild(list);
    expect(catalog.listed().map((s) => s.servers.map((server) => server.id))).toEqual([['a', 'r'], ['c', 'd']]);
    expect(catalog.listed()[1]!.servers[1]).toEqual({ id: 'd', subscriptionId: 's2', name: 'Server d', protocol: 'vless', address: expect.any(String) as unknown as string, port: expect.any(Number) as unknown as number, via: 'a' });
    // What the WebSocket carries follows a change: the columns are not those of the list before it.
    const before = subscriptionFromWire(subscriptionToWire(catalog.listed()[0]!));
    expect(before.servers.map((s) => s.name)).toEqual(['Server a', 'Server r']);
    catalog.rebuild([subscriptionOf('s1', [vlessServer('a', 's1', { name: 'Renamed a' })])]);
    expect(subscriptionFromWire(subscriptionToWire(catalog.listed()[0]!)).servers.map((s) => s.name)).toEqual(['Renamed a']);
  });

  it('runs each server by the chain chosen in its details: the index, the window’s list and the refusals follow it', () => {
    let chains: Record<string, string> = { d: 'a' };
    const catalog = new ServerCatalog(xray18, [], () => chains);
    catalog.rebuild(list);
    expect(catalog.index.withUpstream('d')?.via?.id).toBe('a');
    expect(catalog.subscriptions()[1]!.servers.find((s) => s.id === 'd')?.via).toBe('a');
    expect(catalog.unsupported()).toEqual({});

    // A front chained itself, and a front that is gone: both refused, with the reason.
    chains = { a: 'c', d: 'gone' };
    catalog.rebuild(list);
    expect(catalog.unsupported()).toEqual({
      a: 'reached through Server c, which is itself reached through another server: a chain has one front here',
      d: FRONT_GONE,
    });
    chains = {};
    catalog.rebuild(list);
    expect(catalog.index.withUpstream('d')?.via).toBeUndefined();
    expect(catalog.unsupported()).toEqual({});
  });
});
