import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Problem } from '../../shared/domain/problem';
import type { SubscriptionId } from '../../shared/domain/server';
import type { Subscription, SubscriptionErrorKind } from '../../shared/domain/subscription';
import { userAgentSchema } from '../../shared/ipc/contract';
import type { Clock } from '../clock';
import type { Logger } from '../log/logger';
import { FIRST_FORMAT } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';
import { secretsOf } from '../../shared/domain/secrets';
import { firstIssueMessage } from '../../shared/zod-issues';
import type { SubscriptionFetcher } from './fetch';
import { assignIds } from './identity';
import { SubscriptionNotAdded } from './not-added';
import { parseSubscription } from './parse';
import { plural, updateFromFetch } from './policy/update';
import { type SubscriptionsDocument, subscriptionsDocumentSchema } from './schema';
import { listenerErrorsTo, Signal } from '../events';

const TAG = 'SUBSCRIPTIONS';
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `<dataDir>/subscriptions.json`, written 0600: it holds every server's credentials; `problems` hears a failed save. */
export function subscriptionsFile(dataDir: string, problems?: ProblemSink): JsonFile<SubscriptionsDocument> {
  return new JsonFile<SubscriptionsDocument>({
    path: join(dataDir, 'subscriptions.json'),
    schema: subscriptionsDocumentSchema,
    format: FIRST_FORMAT,
    fallback: () => ({ version: 1, subscriptions: [] }),
    mode: 0o600,
    problems,
  });
}

export interface SubscriptionStoreOptions {
  file: JsonFile<SubscriptionsDocument>;
  fetcher: SubscriptionFetcher;
  clock: Clock;
  logger: Logger;
  /** Ids for pasted-text subscriptions (a URL subscription's id is derived from its URL). */
  newId?: () => string;
}

export type SubscriptionInput = { url: string } | { text: string };
export type SubscriptionsListener = (subscriptions: readonly Subscription[]) => void;

/**
 * The user's subscriptions, in the user's order (the order defines "neighbour" for Auto),
 * persisted 0600.
 *
 * Nothing is lost on a bad update: a failed, hanging or oversized fetch, an empty response, or a
 * body from which no server could be read keeps the previous server list and sets `lastError` to
 * a sentence saying what happened. A list that parsed fine but has no servers replaces a
 * non-empty one only after `confirmEmpty` (until then `pendingEmpty` is set). A corrupt file
 * never blocks start-up: it is set aside and `problem` says so.
 *
 * Every credential is registered with the logger's redactor as servers load, so no log line can
 * carry one.
 */
export class SubscriptionStore {
  /** For the user when the file was unreadable at start (it was set aside); else null. */
  problem: Problem | null = null;
  private subscriptions: Subscription[] = [];
  private readonly changes: Signal<readonly Subscription[]>;
  private readonly updating = new Map<SubscriptionId, Promise<Subscription>>();
  private loading: Promise<void> | null = null;
  private readonly file: JsonFile<SubscriptionsDocument>;
  private readonly fetcher: SubscriptionFetcher;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly newId: () => string;

  constructor(options: SubscriptionStoreOptions) {
    this.file = options.file;
    this.fetcher = options.fetcher;
    this.clock = options.clock;
    this.logger = options.logger;
    this.changes = new Signal('subscriptions', listenerErrorsTo(options.logger, TAG));
    this.newId = options.newId ?? (() => `p-${randomUUID().slice(0, 13)}`);
  }

  /** Reads the file once (later calls share the first); every other operation waits for it. */
  load(): Promise<readonly Subscription[]> {
    this.loading ??= this.file.load().then((result) => {
      this.subscriptions = result.value.subscriptions;
      this.problem = result.problem;
      if (result.problem) this.logger.warn(TAG, result.problem.detail);
      for (const subscription of this.subscriptions) this.registerSecrets(subscription);
      this.logger.info(TAG, `loaded ${this.subscriptions.length} subscription(s), ${this.serverCount()} server(s)`);
    });
    return this.loading.then(() => this.subscriptions);
  }

  list(): readonly Subscription[] {
    return this.subscriptions;
  }

  get(id: SubscriptionId): Subscription | undefined {
    return this.subscriptions.find((s) => s.id === id);
  }

  onChange(listener: SubscriptionsListener): () => void {
    return this.changes.on(listener);
  }

  /**
   * Adds a subscription by URL (fetched at once; a failed first fetch still adds it, with the
   * error, so the user's URL is not lost, unless `onlyIfFetched`: then a failed or empty first
   * fetch adds nothing and throws `SubscriptionNotAdded` with why) or by pasted text (refused,
   * with the reason, when it holds no usable server). Adding a URL that is already in the list
   * returns that subscription.
   */
  async add(input: SubscriptionInput, name?: string, options: { userAgent?: string; onlyIfFetched?: boolean } = {}): Promise<Subscription> {
    await this.load();
    const givenName = name?.trim() || undefined;
    if ('url' in input && options.onlyIfFetched) return this.addFetched(checkedUrl(input.url), givenName, options.userAgent?.trim() || undefined);
    if ('url' in input) {
      const url = checkedUrl(input.url);
      const existing = this.subscriptions.find((s) => s.url === url);
      if (existing) return existing;
      this.logger.redactor.add(url);
      const subscription: Subscription = {
        id: `u-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`,
        url,
        ...(options.userAgent?.trim() ? { userAgent: options.userAgent.trim() } : {}),
        name: givenName ?? new URL(url).hostname,
        servers: [],
        usage: null,
        rejected: [],
        updatedAt: null,
        lastError: null,
      lastErrorKind: null,
        pendingEmpty: false,
      };
      this.subscriptions = [...this.subscriptions, subscription];
      await this.commit(`added "${subscription.name}"`);
      return this.refresh(subscription.id, givenName === undefined);
    }

    const parsed = parseSubscription(input.text);
    if (parsed.servers.length === 0) {
      const why = parsed.rejected[0] ? `: ${parsed.rejected[0].reason}` : '';
      throw new Error(`The pasted text holds no usable server${why}.`);
    }
    const id = this.newId();
    const subscription: Subscription = {
      id,
      name: givenName ?? parsed.info?.remarks ?? 'Pasted servers',
      servers: assignIds(id, [], parsed.servers),
      usage: parsed.info?.usage ?? null,
      rejected: parsed.rejected,
      updatedAt: this.clock.now(),
      lastError: null,
      lastErrorKind: null,
      pendingEmpty: false,
    };
    this.registerSecrets(subscription);
    this.subscriptions = [...this.subscriptions, subscription];
    await this.commit(`added "${subscription.name}" from pasted text: ${subscription.servers.length} server(s), ${parsed.rejected.length} rejected`);
    return subscription;
  }

  /** A URL subscription stored only with the servers of a working first fetch. */
  private async addFetched(url: string, givenName: string | undefined, userAgent: string | undefined): Promise<Subscription> {
    const existing = this.subscriptions.find((s) => s.url === url);
    if (existing) return existing;
    this.logger.redactor.add(url);
    const host = new URL(url).hostname;
    const outcome = await this.fetcher.fetch(url, userAgent ? { userAgent } : {});
    if (!outcome.ok) throw this.notAdded(host, outcome.kind, `${outcome.message}`);
    const parsed = parseSubscription(outcome.body);
    if (parsed.servers.length === 0) {
      const first = parsed.rejected[0]?.reason;
      if (parsed.format === 'empty' || first === undefined) throw this.notAdded(host, 'empty-response', 'the provider lists no servers');
      throw this.notAdded(host, 'no-usable-server', `no usable server in the provider's response (${first})`);
    }
    const again = this.subscriptions.find((s) => s.url === url);
    if (again) return again; // the same address, added while this one was fetched
    const id: SubscriptionId = `u-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
    const now = this.clock.now();
    const subscription: Subscription = {
      id,
      url,
      ...(userAgent ? { userAgent } : {}),
      name: givenName ?? outcome.title ?? parsed.info?.remarks ?? host,
      servers: assignIds(id, [], parsed.servers),
      usage: outcome.usage ?? parsed.info?.usage ?? null,
      rejected: parsed.rejected,
      updatedAt: now,
      lastAttemptAt: now,
      updateIntervalHours: outcome.updateIntervalHours,
      announce: outcome.announce,
      lastError: null,
      lastErrorKind: null,
      pendingEmpty: false,
    };
    for (const note of parsed.notes) this.logger.info(TAG, `"${subscription.name}" line ${note.line}: ${note.note}`);
    this.registerSecrets(subscription);
    this.subscriptions = [...this.subscriptions, subscription];
    const via = outcome.viaTunnel ? ' through the tunnel' : '';
    await this.commit(`added "${subscription.name}" (${parsed.format})${via}: ${plural(subscription.servers.length, 'server')}, ${parsed.rejected.length} rejected`);
    return subscription;
  }

  private notAdded(host: string, kind: SubscriptionErrorKind, why: string): SubscriptionNotAdded {
    this.logger.warn(TAG, `${host} was not added: ${why}`);
    return new SubscriptionNotAdded(kind, `Nothing was added: ${why}.`);
  }

  /** Fetches, parses and re-identifies; concurrent calls for one subscription share one fetch. */
  async update(id: SubscriptionId): Promise<Subscription> {
    await this.load();
    return this.refresh(id, false);
  }

  /**
   * The User-Agent this subscription is fetched with from now on (null: the app's own again),
   * saved at once; the next update uses it. A pasted subscription is never fetched: it has none.
   */
  async setUserAgent(id: SubscriptionId, userAgent: string | null): Promise<Subscription> {
    await this.load();
    const current = this.require(id);
    if (!current.url) throw new Error(`"${current.name}" was pasted, not fetched from an address: it has no User-Agent to set.`);
    const checked = userAgent === null || userAgent.trim() === '' ? null : userAgentSchema.safeParse(userAgent);
    if (checked && !checked.success) throw new Error(`Not saved: ${firstIssueMessage(checked.error) ?? 'the User-Agent is not valid'}.`);
    const { userAgent: _previous, ...rest } = current;
    const next: Subscription = checked ? { ...rest, userAgent: checked.data } : rest;
    this.replace(next);
    await this.commit(`"${current.name}" is fetched with ${checked ? 'its own User-Agent' : "the app's User-Agent"} from now on`);
    return next;
  }

  async remove(id: SubscriptionId): Promise<boolean> {
    await this.load();
    const removed = this.get(id);
    if (!removed) return false;
    this.subscriptions = this.subscriptions.filter((s) => s.id !== id);
    await this.commit(`removed "${removed.name}"`);
    return true;
  }

  /**
   * Puts the subscriptions in the given order. Unknown ids are ignored and subscriptions the list
   * leaves out keep their relative order after the named ones, so a stale UI loses nothing.
   */
  async reorder(ids: readonly SubscriptionId[]): Promise<readonly Subscription[]> {
    await this.load();
    const byId = new Map(this.subscriptions.map((s) => [s.id, s]));
    const ordered: Subscription[] = [];
    for (const id of ids) {
      const subscription = byId.get(id);
      if (!subscription) continue;
      ordered.push(subscription);
      byId.delete(id);
    }
    for (const subscription of this.subscriptions) if (byId.has(subscription.id)) ordered.push(subscription);
    this.subscriptions = ordered;
    await this.commit('reordered');
    return this.subscriptions;
  }

  /** The user agreed that the provider's now-empty list replaces the old one. */
  async confirmEmpty(id: SubscriptionId): Promise<Subscription> {
    await this.load();
    const current = this.require(id);
    if (!current.pendingEmpty) return current;
    const next: Subscription = { ...current, servers: [], rejected: [], pendingEmpty: false, lastError: null, lastErrorKind: null, updatedAt: this.clock.now() };
    this.replace(next);
    await this.commit(`"${current.name}": the empty list replaced ${current.servers.length} server(s), as confirmed`);
    return next;
  }

  private refresh(id: SubscriptionId, nameFromTitle: boolean): Promise<Subscription> {
    const running = this.updating.get(id);
    if (running) return running;
    const work = this.fetchAndApply(id, nameFromTitle).finally(() => this.updating.delete(id));
    this.updating.set(id, work);
    return work;
  }

  private async fetchAndApply(id: SubscriptionId, nameFromTitle: boolean): Promise<Subscription> {
    const before = this.require(id);
    if (!before.url) return before; // pasted text: nothing to fetch
    const outcome = await this.fetcher.fetch(before.url, before.userAgent ? { userAgent: before.userAgent } : {});
    const fetched = this.get(id);
    if (!fetched) return before; // removed while fetching
    const result = updateFromFetch(fetched, outcome, nameFromTitle, this.clock.now());
    for (const note of result.notes) this.logger.info(TAG, `"${fetched.name}" line ${note.line}: ${note.note}`);
    if (result.kind === 'updated') this.registerSecrets(result.next);
    this.replace(result.next);
    if (result.kind === 'failed') this.logger.warn(TAG, `"${result.next.name}": ${result.message}`);
    await this.commit(result.kind === 'failed' ? null : result.logLine);
    return result.next;
  }

  private require(id: SubscriptionId): Subscription {
    const subscription = this.get(id);
    if (!subscription) throw new Error(`There is no subscription with id "${id}".`);
    return subscription;
  }

  private replace(next: Subscription): void {
    this.subscriptions = this.subscriptions.map((s) => (s.id === next.id ? next : s));
  }

  /** Saves, then tells listeners. A failed save keeps the in-memory list (the file's problem sink tells the user). */
  private async commit(logLine: string | null): Promise<void> {
    if (logLine) this.logger.info(TAG, logLine);
    try {
      await this.file.save({ version: 1, subscriptions: this.subscriptions });
    } catch (error) {
      // The file has put its problem in the sink, for the window.
      this.logger.error(TAG, `Could not save the subscriptions: ${error instanceof Error ? error.message : String(error)}. Changes are kept until the app closes.`);
    }
    this.changes.emit(this.subscriptions);
  }

  private registerSecrets(subscription: Subscription): void {
    if (subscription.url) this.logger.redactor.add(subscription.url);
    // Canonical UUIDs are masked by the redactor's own pattern; registering them too would only
    // grow its list (one alternation per secret, checked on every log line).
    for (const server of subscription.servers) this.logger.redactor.add(...secretsOf(server).filter((s) => !CANONICAL_UUID.test(s)));
  }

  private serverCount(): number {
    return this.subscriptions.reduce((n, s) => n + s.servers.length, 0);
  }
}


function checkedUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error('The subscription address is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('The subscription address must start with http:// or https://.');
  return url.href;
}

export { secretsOf };
