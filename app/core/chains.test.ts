import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import type { Chains } from '../../shared/settings';
import { FRONT_GONE, withChosenChains } from './chains';
import { sampleServer } from './samples';

const server = (id: string, extra: Partial<Server> = {}): Server => sampleServer('vless', 'tcp', { id, subscriptionId: id[0], name: `Server ${id}`, ...extra });
const subscription = (id: string, servers: Server[]): Subscription => ({ id, name: id, servers, usage: null, rejected: [], updatedAt: 1, lastError: null, pendingEmpty: false });

// a1 is chained by its link through a2; b1 and b2 have no chain of their own.
const list = [subscription('a', [server('a1', { via: 'a2' }), server('a2')]), subscription('b', [server('b1'), server('b2')])];

describe('withChosenChains', () => {
  const cases: [string, Chains, Record<string, string | undefined>, Record<string, string>][] = [
    ['no choice: the links’ own chains stand', {}, { a1: 'a2', a2: undefined, b1: undefined, b2: undefined }, {}],
    ['a front chosen for a server without a chain', { b1: 'a2' }, { a1: 'a2', b1: 'a2', b2: undefined }, {}],
    ['a chosen front takes the place of the link’s', { a1: 'b2' }, { a1: 'b2' }, {}],
    ['a front in another subscription is fine (ids are global)', { b2: 'a2' }, { b2: 'a2' }, {}],
    ['a front that left every subscription stays in the chain and the server is refused', { b1: 'gone' }, { b1: 'gone' }, { b1: FRONT_GONE }],
    ['a choice for a server that is not there today changes nothing', { zz: 'a2' }, { a1: 'a2', b1: undefined }, {}],
    ['a server named as its own front is left as it was', { b1: 'b1' }, { b1: undefined }, {}],
  ];
  it.each(cases)('%s', (_, chains, vias, refused) => {
    const result = withChosenChains(list, chains);
    const byId = new Map(result.subscriptions.flatMap((s) => s.servers).map((s) => [s.id, s]));
    for (const [id, via] of Object.entries(vias)) expect(byId.get(id)?.via, id).toBe(via);
    expect(result.refused).toEqual(refused);
    // Subscriptions and their order are kept; the stored list is not touched.
    expect(result.subscriptions.map((s) => s.servers.map((x) => x.id))).toEqual([['a1', 'a2'], ['b1', 'b2']]);
    expect(list[1]!.servers[0]!.via).toBeUndefined();
  });
});
