import { describe, expect, it } from 'vitest';
import { type ConnectContext, connectTarget } from './connect-target';

const subscriptions = [
  { id: 'A', serverIds: ['a1', 'a2', 'a3'] },
  { id: 'B', serverIds: ['b1', 'b2'] },
  { id: 'E', serverIds: [] },
];
const delays: Record<string, number | null> = { a1: 120, a2: 80, a3: null, b1: 60, b2: null };
const base: ConnectContext = {
  requested: undefined,
  current: null,
  autoSubscriptionId: null,
  subscriptions,
  excluded: {},
  unsupported: {},
  delayOf: (id) => delays[id] ?? null,
};
const untested = { delayOf: () => null };

describe('connectTarget', () => {
  it.each<[string, Partial<ConnectContext>, string | null]>([
    ['the server the user named wins', { requested: 'b1', current: 'a2', autoSubscriptionId: 'A' }, 'b1'],
    ['else the current server (Auto’s choice when Auto is on)', { current: 'a3', autoSubscriptionId: 'B' }, 'a3'],
    ['a current server that left with an update is not used', { current: 'gone', autoSubscriptionId: 'A' }, 'a2'],
    ["else the fastest that answered in Auto's subscription", { autoSubscriptionId: 'A' }, 'a2'],
    ['Auto off: the fastest that answered anywhere', {}, 'b1'],
    ['servers kept out of Auto are passed over', { autoSubscriptionId: 'A', excluded: { A: ['a2'] } }, 'a1'],
    ['servers the core cannot run are passed over', { unsupported: { b1: 'not supported by v2ray 4.34.0: hysteria2' } }, 'a2'],
    ['nothing answered yet: the first usable server', { ...untested, unsupported: { a1: 'not supported' } }, 'a2'],
    ["nothing answered yet, Auto on: the first of Auto's subscription", { ...untested, autoSubscriptionId: 'B' }, 'b1'],
    ['Auto on an empty subscription: nothing to connect to', { autoSubscriptionId: 'E' }, null],
    ['every server unsupported: nothing', { subscriptions: [{ id: 'B', serverIds: ['b1'] }], unsupported: { b1: 'no' } }, null],
    ['no subscriptions: nothing', { subscriptions: [] }, null],
  ])('%s', (_name, context, expected) => {
    expect(connectTarget({ ...base, ...context })).toBe(expected);
  });
});
