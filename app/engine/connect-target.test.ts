import { describe, expect, it } from 'vitest';
import { type ConnectContext, connectTarget } from './connect-target';

const subscriptions = [
  { id: 'A', serverIds: ['a1', 'a2'] },
  { id: 'B', serverIds: ['b1'] },
  { id: 'E', serverIds: [] },
];
const base: ConnectContext = { requested: undefined, current: null, autoSubscriptionId: null, subscriptions };

describe('connectTarget', () => {
  it.each<[string, Partial<ConnectContext>, string | null]>([
    ['the server the user named wins', { requested: 'b1', current: 'a2', autoSubscriptionId: 'A' }, 'b1'],
    ['else the current server', { current: 'a2', autoSubscriptionId: 'B' }, 'a2'],
    ["else the first of Auto's subscription", { autoSubscriptionId: 'B' }, 'b1'],
    ['else the first server of the first subscription', {}, 'a1'],
    ["Auto on an empty subscription: nothing to connect to", { autoSubscriptionId: 'E' }, null],
    ['no subscriptions: nothing', { subscriptions: [] }, null],
  ])('%s', (_name, context, expected) => {
    expect(connectTarget({ ...base, ...context })).toBe(expected);
  });
});
