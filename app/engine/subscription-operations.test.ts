import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AutoSnapshot } from '../../shared/domain/auto';
import type { SubscriptionId } from '../../shared/domain/server';
import { ImportInbox } from '../imports/inbox';
import { memoryLogger } from '../log/logger';
import { HttpSubscriptionFetcher } from '../subscriptions/fetch';
import { SubscriptionStore, subscriptionsFile } from '../subscriptions/store';
import { FakeClock } from '../testing/fake-clock';
import { ServerIndex } from './server-index';
import { subscriptionOperations } from './subscription-operations';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const LINK = `vless://${UUID}@a.example.com:443?security=tls&sni=a.example.com#Frankfurt`;

async function world() {
  const clock = new FakeClock(1_000_000);
  const { logger } = memoryLogger('info');
  const store = new SubscriptionStore({ file: subscriptionsFile(mkdtempSync(join(tmpdir(), 'sub-ops-'))), fetcher: new HttpSubscriptionFetcher(), clock, logger });
  await store.load();
  const index = new ServerIndex();
  store.onChange((list) => index.rebuild(list));
  const autoAsked: (SubscriptionId | null)[] = [];
  const snapshot = { subscriptionId: null } as unknown as AutoSnapshot;
  const ops = subscriptionOperations({
    subscriptions: store,
    index,
    imports: new ImportInbox(clock, logger),
    auto: {
      setAuto: (id) => {
        autoAsked.push(id);
        // As Auto refuses a subscription none of whose servers the core can run.
        return id !== null && store.get(id)?.name === 'Unrunnable' ? { ok: false, error: 'no server of this subscription can run on this core' } : { ok: true };
      },
      // As Auto refuses marking every server of a subscription.
      setExcluded: (_id, serverIds) =>
        serverIds.length > 1 ? { ok: false, error: 'The last unmarked server cannot be marked: Auto needs one server it may take.', code: 'last-unmarked-server' } : { ok: true },
      snapshot: () => snapshot,
    },
    // As the groups refuse a name that is no group's.
    groups: { setExcluded: (name) => (name === 'AI' ? { ok: true } : { ok: false, error: `There is no server group "${name}".`, code: 'no-such-group' }) },
  });
  return { store, ops, autoAsked };
}

describe('subscription operations', () => {
  it('a pasted subscription reaches the window without its credentials; sharing a server gives the whole link', async () => {
    const { store, ops } = await world();
    const added = await ops.addSubscription({ text: `${LINK}\n`, name: 'Pasted' });
    expect(added.name).toBe('Pasted');
    expect(added.servers[0]).toMatchObject({ name: 'Frankfurt' });
    expect(added.servers[0]).not.toHaveProperty('uuid');
    expect(store.get(added.id)?.servers[0]).toMatchObject({ uuid: UUID });
    const { link } = await ops.shareLink({ serverId: added.servers[0]!.id });
    expect(link).toContain(UUID);
    // A pasted subscription has no URL to share.
    expect(await ops.shareLink({ subscriptionId: added.id })).toEqual({ link: null });
  });

  it('refuses, naming it and with its code, a subscription that does not exist, and asks Auto nothing', async () => {
    const { ops, autoAsked } = await world();
    const missing = { code: 'no-such-subscription', message: 'no subscription with id "nope"' };
    await expect(ops.updateSubscription({ id: 'nope' })).rejects.toMatchObject(missing);
    await expect(ops.editSubscription({ id: 'nope', userAgent: 'Happ/3.0' })).rejects.toMatchObject(missing);
    await expect(ops.removeSubscription({ id: 'nope' })).rejects.toMatchObject(missing);
    await expect(ops.confirmEmptySubscription({ id: 'nope' })).rejects.toMatchObject(missing);
    await expect(ops.setAuto({ subscriptionId: 'nope' })).rejects.toMatchObject(missing);
    await expect(ops.setExcluded({ subscriptionId: 'nope', serverIds: [] })).rejects.toMatchObject(missing);
    await expect(ops.shareLink({ subscriptionId: 'nope' })).rejects.toMatchObject(missing);
    expect(autoAsked).toEqual([]);
  });

  it('a subscription’s User-Agent is set and cleared through the contract, and saved', async () => {
    const { store, ops } = await world();
    // Nothing listens there: the first fetch fails, the subscription is added with the error.
    const added = await ops.addSubscription({ url: 'http://127.0.0.1:9/sub' });
    const edited = await ops.editSubscription({ id: added.id, userAgent: 'clash-verge/v1.7.7' });
    expect(edited).toMatchObject({ id: added.id, userAgent: 'clash-verge/v1.7.7' });
    expect(store.get(added.id)?.userAgent).toBe('clash-verge/v1.7.7');
    await expect(ops.editSubscription({ id: added.id, userAgent: 'tab\there' })).rejects.toThrow(/printable ASCII/);
    expect(store.get(added.id)?.userAgent).toBe('clash-verge/v1.7.7');
    expect((await ops.editSubscription({ id: added.id, userAgent: null })).userAgent).toBeUndefined();
  });

  it("says Auto's refusal in Auto's words; turning Auto off needs no subscription", async () => {
    const { ops, autoAsked } = await world();
    const unrunnable = await ops.addSubscription({ text: `${LINK}\n`, name: 'Unrunnable' });
    await expect(ops.setAuto({ subscriptionId: unrunnable.id })).rejects.toThrow('no server of this subscription can run on this core');
    await ops.setAuto({ subscriptionId: null });
    expect(autoAsked).toEqual([unrunnable.id, null]);
  });

  it("passes on the code of Auto's refusal with its words, for the window to translate", async () => {
    const { ops } = await world();
    const added = await ops.addSubscription({ text: `${LINK}\n`, name: 'Pasted' });
    await expect(ops.setExcluded({ subscriptionId: added.id, serverIds: ['a', 'b'] })).rejects.toMatchObject({
      code: 'last-unmarked-server',
      message: 'The last unmarked server cannot be marked: Auto needs one server it may take.',
    });
    // A refusal Auto gives no code stays the plain sentence.
    await expect(ops.setAuto({ subscriptionId: (await ops.addSubscription({ text: `${LINK}\n`, name: 'Unrunnable' })).id })).rejects.not.toHaveProperty('code');
  });

  it("a group's marks are answered with Auto's snapshot; a group that does not exist is refused with its code", async () => {
    const { ops } = await world();
    await expect(ops.setGroupExcluded({ group: 'AI', serverIds: ['us1'] })).resolves.toMatchObject({ subscriptionId: null });
    await expect(ops.setGroupExcluded({ group: 'JP', serverIds: [] })).rejects.toMatchObject({ code: 'no-such-group', message: 'There is no server group "JP".' });
  });

  it('an import the user accepts becomes a subscription; the request is gone', async () => {
    const { store, ops } = await world();
    const request = await ops.offerImport({ text: LINK, source: 'qr' });
    const added = await ops.answerImport({ id: request.id, accept: true });
    expect(added?.servers.map((s) => s.name)).toEqual(['Frankfurt']);
    expect(store.get(added!.id)).toBeDefined();
    await expect(ops.answerImport({ id: request.id, accept: true })).rejects.toThrow('that import request was already answered');
  });

  it('removes and reorders as asked', async () => {
    const { store, ops } = await world();
    const one = await ops.addSubscription({ text: `${LINK}\n`, name: 'One' });
    const two = await ops.addSubscription({ text: `${LINK.replace('Frankfurt', 'Paris')}\n`, name: 'Two' });
    await ops.reorderSubscriptions({ ids: [two.id, one.id] });
    expect(store.list().map((s) => s.name)).toEqual(['Two', 'One']);
    await ops.removeSubscription({ id: two.id });
    expect(store.list().map((s) => s.name)).toEqual(['One']);
  });
});
