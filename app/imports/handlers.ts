/** The contract's import operations over an inbox; `add` is how the engine adds a subscription. */
import type { InvokeRequest, InvokeResponses, ListSubscription } from '../../shared/ipc/contract';
import type { ImportInbox } from './inbox';

export type AddSource = { url: string } | { text: string };

export function importHandlers(
  inbox: ImportInbox,
  add: (source: AddSource, name: string | undefined) => Promise<ListSubscription>,
): {
  offerImport(request: InvokeRequest<'offerImport'>): Promise<InvokeResponses['offerImport']>;
  answerImport(request: InvokeRequest<'answerImport'>): Promise<InvokeResponses['answerImport']>;
} {
  return {
    offerImport: async (r) => inbox.offerText(r.text, r.source),
    answerImport: async (r) => {
      const request = inbox.get(r.id);
      if (!request) throw new Error('that import request was already answered');
      if (!r.accept || request.target.kind === 'unreadable') {
        inbox.dismiss(r.id);
        return null;
      }
      // Only now, on the user's word, is anything fetched: exactly what the request showed them.
      // A failure keeps the request, so the user reads why and may try again or decline.
      const source: AddSource = request.target.kind === 'subscription' ? { url: request.target.url } : { text: request.target.text };
      const added = await add(source, request.name ?? undefined);
      inbox.dismiss(r.id);
      return added;
    },
  };
}
