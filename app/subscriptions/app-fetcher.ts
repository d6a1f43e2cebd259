/**
 * How every host asks a provider for a subscription: the desktop app, the headless host and each
 * CLI command build their fetcher here, so a request carries the same User-Agent and device
 * headers whoever sends it. Built elsewhere, `cli parse` once asked without the device headers and
 * a Remnawave panel answered "App not supported" instead of the servers.
 */
import type { Problem } from '../../shared/domain/problem';
import type { Logger } from '../log/logger';
import type { ProblemSink } from '../storage/problem-sink';
import { deviceHeaders, loadDeviceIdentity } from './device-identity';
import { type FetchOptions, type FetchOutcome, type HttpFetcherOptions, HttpSubscriptionFetcher, type SubscriptionFetcher } from './fetch';
import { type TunnelAttemptListener, TunnelFallbackFetcher } from './tunnel-fallback';

export interface AppFetcherOptions {
  /** The profile's data folder: the device id is kept there (`device-id.json`). */
  dataDir: string;
  logger: Logger;
  /**
   * The tunnel's HTTP proxy while it is connected, else null: a provider blocked on the user's
   * network is asked once more through it. Absent where no tunnel runs (`cli parse`).
   */
  tunnelProxy?: () => string | null;
  /** Told of each retry through the tunnel (tunnel-fallback.ts). */
  onTunnelAttempt?: TunnelAttemptListener;
  /** Deadlines and bounds of the HTTP fetcher (its defaults otherwise). */
  http?: Omit<HttpFetcherOptions, 'extraHeaders'>;
  /** Where the device id file's failed save is put for the user (the engine's board). */
  problems?: ProblemSink;
}

export interface AppFetcher extends SubscriptionFetcher {
  /** Closes its connections (a command that exits after one fetch). */
  close(): Promise<void>;
  /** The device id file was unreadable at start (set aside, a new id made). */
  readonly problem: Problem | null;
}

export async function appFetcher(options: AppFetcherOptions): Promise<AppFetcher> {
  const device = await loadDeviceIdentity(options.dataDir, options.problems);
  if (device.note) options.logger.warn('SUBSCRIPTIONS', device.note);
  const http = new HttpSubscriptionFetcher({ ...options.http, extraHeaders: deviceHeaders(device.identity) });
  const tunnelProxy = options.tunnelProxy;
  const fetcher: SubscriptionFetcher = tunnelProxy ? new TunnelFallbackFetcher(http, tunnelProxy, options.logger, options.onTunnelAttempt) : http;
  return {
    fetch: (url: string, fetchOptions?: FetchOptions): Promise<FetchOutcome> => fetcher.fetch(url, fetchOptions),
    close: () => http.close(),
    problem: device.problem,
  };
}
