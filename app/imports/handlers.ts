/** The contract's import operations over an inbox; `add` is how the engine adds a subscription. */
import type { InvokeRequest, InvokeResponses, ListSubscription } from '../../shared/ipc/contract';
import { EngineRefusal } from '../../shared/domain/refusal';
import { notAddedKindOf } from '../subscriptions/not-added';
import { readImportText } from './deep-link';
import type { ImportInbox } from './inbox';

export type AddSource = { url: string } | { text: string };
export type AddOptions = { userAgent?: string; /** a failed or empty first fetch adds nothing */ onlyIfFetched: boolean };

export function importHandlers(
  inbox: ImportInbox,
  add: (source: AddSource, name: string | undefined, options: AddOptions) => Promise<ListSubscription>,
): {
  offerImport(request: InvokeRequest<'offerImport'>): Promise<InvokeResponses['offerImport']>;
  answerImport(request: InvokeRequest<'answerImport'>): Promise<InvokeResponses['answerImport']>;
} {
  return {
    offerImport: async (r) => {
      const read = readImportText(r.text, r.source);
      // The box is the user's own hand: what it cannot read is said there, not queued as a request.
      if (r.source === 'paste' && read.target.kind === 'unreadable') {
        const english = `Nothing to add: ${read.target.reason}.`;
        const { problem } = read.target;
        throw new EngineRefusal('nothing-to-import', english, problem && { ...problem, path: [], english });
      }
      // A name the user typed stands for the one the text proposes.
      const name = r.name?.trim() ? r.name.trim() : read.name;
      return inbox.offer({ ...read, name, ...(r.userAgent ? { userAgent: r.userAgent } : {}) });
    },
    answerImport: async (r) => {
      const request = inbox.get(r.id);
      if (!request) throw new Error('that import request was already answered');
      if (!r.accept || request.target.kind === 'unreadable') {
        inbox.dismiss(r.id);
        return null;
      }
      // Only now, on the user's word, is anything fetched: exactly what the request showed them.
      // A failure keeps the request, so the user reads why and may try again, decline, or keep
      // the subscription to be retried later (only then is it added without servers).
      const source: AddSource = request.target.kind === 'subscription' ? { url: request.target.url } : { text: request.target.text };
      let added: ListSubscription;
      try {
        added = await add(source, request.name ?? undefined, { ...(request.userAgent ? { userAgent: request.userAgent } : {}), onlyIfFetched: r.keep !== true });
      } catch (error) {
        const kind = notAddedKindOf(error);
        if (!kind) throw error;
        const detail = error instanceof Error ? error.message : String(error);
        inbox.failed(r.id, { kind, detail });
        throw new EngineRefusal('subscription-not-added', detail);
      }
      inbox.dismiss(r.id);
      return added;
    },
  };
}
