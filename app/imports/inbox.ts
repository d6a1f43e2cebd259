/**
 * Import requests waiting for the user's answer: links handed over by the OS, codes read from a
 * picture. The host owns the list (it is part of the snapshot and comes whole in each
 * `importRequests` event, so a window opened after the link arrived still asks); answering
 * removes a request. Nothing here fetches or adds anything: that is the user's call.
 */
import type { ImportRequest } from '../../shared/domain/import-request';
import type { Clock } from '../clock';
import { listenerErrorsTo, Signal } from '../events';
import type { Logger } from '../log/logger';
import { type DeepLink, parseDeepLink, readImportText } from './deep-link';

/** More would be a flood (a script opening links in a loop), not a user clicking "add to app". */
export const MAX_PENDING_IMPORTS = 10;

export class ImportInbox {
  private requests: ImportRequest[] = [];
  private seq = 0;
  private readonly changes: Signal<ImportRequest[]>;

  constructor(
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {
    this.changes = new Signal('importRequests', logger ? listenerErrorsTo(logger, 'IMPORT') : undefined);
  }

  /** A link from the OS or the command line; returns the request it became. */
  offerLink(raw: string): ImportRequest {
    return this.offer(parseDeepLink(raw));
  }

  /** Text found in a picture (a QR code) or elsewhere; `source` says where. */
  offerText(text: string, source: string): ImportRequest {
    return this.offer(readImportText(text, source));
  }

  offer(request: DeepLink): ImportRequest {
    const added: ImportRequest = { id: `i${++this.seq}-${this.clock.now().toString(36)}`, receivedAt: this.clock.now(), ...request };
    // The same link twice (a double click) asks once.
    this.requests = [...this.requests.filter((r) => !sameTarget(r, added)), added].slice(-MAX_PENDING_IMPORTS);
    this.logger?.info('IMPORT', `${added.source} link received: ${describe(added)}; waiting for the user to confirm`);
    this.changed();
    return added;
  }

  /** The user answered (added it, declined, or read why it cannot be added). */
  dismiss(id: string): void {
    const before = this.requests.length;
    this.requests = this.requests.filter((r) => r.id !== id);
    if (this.requests.length !== before) this.changed();
  }

  /** Its Add failed and nothing was added: the request stays, saying why, for the user's next word. */
  failed(id: string, failure: NonNullable<ImportRequest['failure']>): void {
    const found = this.get(id);
    if (!found) return;
    this.requests = this.requests.map((r) => (r.id === id ? { ...r, failure } : r));
    this.changed();
  }

  get(id: string): ImportRequest | undefined {
    return this.requests.find((r) => r.id === id);
  }

  list(): ImportRequest[] {
    return [...this.requests];
  }

  onChange(listener: (requests: ImportRequest[]) => void): () => void {
    return this.changes.on(listener);
  }

  private changed(): void {
    this.changes.emit(this.list());
  }
}

function sameTarget(a: ImportRequest, b: ImportRequest): boolean {
  return JSON.stringify([a.source, a.name, a.target]) === JSON.stringify([b.source, b.name, b.target]);
}

/** For the log: the host of a subscription, never its path (it carries the user's token) or credentials. */
function describe(request: ImportRequest): string {
  switch (request.target.kind) {
    case 'subscription':
      return `a subscription at ${new URL(request.target.url).host}`;
    case 'links':
      return 'a share link';
    case 'body':
      return `a subscription's contents (${request.target.format}, ${request.target.servers} server(s))`;
    case 'unreadable':
      return `unreadable (${request.target.reason})`;
  }
}
