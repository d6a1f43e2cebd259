/**
 * The contract's subscription operations: add, update, edit, remove, reorder, confirm an empty list,
 * Auto on a subscription and its exclusions (and a server group's), share links and imports. What leaves here for the
 * window carries no credential (ui-view.ts).
 */
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import type { AutoSnapshot } from '../../shared/domain/auto';
import type { Outcome } from '../auto/runtime';
import { importHandlers } from '../imports/handlers';
import type { ImportInbox } from '../imports/inbox';
import { shareLink } from '../subscriptions/share/share-link';
import type { SubscriptionStore } from '../subscriptions/store';
import type { HandlersOf } from './contract-handlers';
import type { ServerIndex } from './server-index';
import { subscriptionForUi } from './ui-view';
import { EngineRefusal } from '../../shared/domain/refusal';

export interface SubscriptionOperationsDeps {
  subscriptions: Pick<SubscriptionStore, 'add' | 'update' | 'setUserAgent' | 'remove' | 'reorder' | 'confirmEmpty' | 'get'>;
  auto: {
    setAuto(subscriptionId: SubscriptionId | null): Outcome;
    setExcluded(subscriptionId: SubscriptionId, serverIds: ServerId[]): Outcome;
    /** Auto's snapshot with the groups' picks (an answer without them would drop them from the window). */
    snapshot(): AutoSnapshot;
  };
  groups: { setExcluded(name: string, serverIds: ServerId[]): Outcome };
  index: Pick<ServerIndex, 'require'>;
  imports: ImportInbox;
}

type Operations =
  | 'addSubscription'
  | 'updateSubscription'
  | 'editSubscription'
  | 'removeSubscription'
  | 'reorderSubscriptions'
  | 'confirmEmptySubscription'
  | 'setAuto'
  | 'setExcluded'
  | 'setGroupExcluded'
  | 'shareLink'
  | 'offerImport'
  | 'answerImport';

export function subscriptionOperations(deps: SubscriptionOperationsDeps): HandlersOf<Operations> {
  const { subscriptions, auto } = deps;
  const requireSubscription = (id: SubscriptionId) => {
    const found = subscriptions.get(id);
    if (!found) throw new EngineRefusal('no-such-subscription', `no subscription with id "${id}"`);
    return found;
  };
  const autoAnswer = (outcome: Outcome): AutoSnapshot => {
    if (!outcome.ok) throw outcome.code ? new EngineRefusal(outcome.code, outcome.error) : new Error(outcome.error);
    return auto.snapshot();
  };
  return {
    addSubscription: async (r) =>
      subscriptionForUi(await subscriptions.add(r.url !== undefined ? { url: r.url } : { text: r.text ?? '' }, r.name, { userAgent: r.userAgent })),
    updateSubscription: async (r) => subscriptionForUi(await subscriptions.update(requireSubscription(r.id).id)),
    editSubscription: async (r) => subscriptionForUi(await subscriptions.setUserAgent(requireSubscription(r.id).id, r.userAgent)),
    removeSubscription: async (r) => {
      await subscriptions.remove(requireSubscription(r.id).id);
      return null;
    },
    reorderSubscriptions: async (r) => {
      await subscriptions.reorder(r.ids);
      return null;
    },
    confirmEmptySubscription: async (r) => subscriptionForUi(await subscriptions.confirmEmpty(requireSubscription(r.id).id)),
    setAuto: async (r) => {
      if (r.subscriptionId !== null) requireSubscription(r.subscriptionId);
      return autoAnswer(auto.setAuto(r.subscriptionId));
    },
    setExcluded: async (r) => {
      requireSubscription(r.subscriptionId);
      return autoAnswer(auto.setExcluded(r.subscriptionId, r.serverIds));
    },
    setGroupExcluded: async (r) => autoAnswer(deps.groups.setExcluded(r.group, r.serverIds)),
    shareLink: async (r) => ({ link: 'serverId' in r ? shareLink(deps.index.require(r.serverId)) : (requireSubscription(r.subscriptionId).url ?? null) }),
    ...importHandlers(deps.imports, async (source, name, options) => subscriptionForUi(await subscriptions.add(source, name, options))),
  };
}
