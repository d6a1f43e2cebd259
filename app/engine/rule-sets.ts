/**
 * The rule sets' pieces as the engine builds them: their store under the data folder, a fetcher
 * that goes direct first and through the tunnel when the direct fetch is blocked (the
 * subscriptions' rule), bounded at the store's size limit, and the refresher. The files are
 * public lists on public hosts: they are asked for without the device headers providers get.
 */
import type { RuleSet } from '../../shared/rule-sets';
import type { Clock } from '../clock';
import type { CoreProfile } from '../core';
import type { Logger } from '../log/logger';
import type { ProblemSink } from '../storage/problem-sink';
import { RuleSetRefresher } from '../routing/rule-sets/refresher';
import { UPDATE_RULES } from '../routing/rule-sets/policy/update';
import { RuleSetStore } from '../routing/rule-sets/store';
import { HttpSubscriptionFetcher } from '../subscriptions/fetch';
import { TunnelFallbackFetcher } from '../subscriptions/tunnel-fallback';

export interface RuleSetPieces {
  store: RuleSetStore;
  refresher: RuleSetRefresher;
  close(): Promise<void>;
}

export async function ruleSetPieces(options: {
  dataDir: string;
  logger: Logger;
  clock: Clock;
  router: CoreProfile | null;
  carriers: readonly CoreProfile[];
  /** The tunnel's HTTP proxy while connected, else null. */
  tunnelProxy: () => string | null;
  sets: () => readonly RuleSet[];
  /** Where a failed save is put for the user. */
  problems: ProblemSink;
}): Promise<RuleSetPieces> {
  // A large list on a slow link takes minutes; silence for 30 s is still the end of it.
  const http = new HttpSubscriptionFetcher({ maxBytes: UPDATE_RULES.maxBytes, timeoutMs: 10 * 60_000, bodyTimeoutMs: 30_000 });
  const fetcher = new TunnelFallbackFetcher(http, options.tunnelProxy, options.logger);
  const singBox = [options.router, ...options.carriers].find((core) => core?.family === 'sing-box') ?? null;
  const router = options.router && options.router.family !== 'sing-box' ? options.router : null;
  const store = new RuleSetStore({
    dataDir: options.dataDir,
    fetcher,
    cores: { router: router && { path: router.path, family: router.family }, singBox: singBox && { path: singBox.path, family: 'sing-box' } },
    clock: options.clock,
    logger: options.logger,
    problems: options.problems,
  });
  await store.load();
  const refresher = new RuleSetRefresher(store, options.sets, options.clock, options.logger);
  return { store, refresher, close: () => http.close() };
}
