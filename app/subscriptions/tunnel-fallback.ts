/**
 * Subscription updates when the provider's own address is blocked: the fetch goes direct first
 * (the provider sees the user's own network, as it expects), and when that fails for a reason the
 * network gives (a reset, a refusal, a timeout, DNS, TLS cut off), once more through the tunnel's
 * local HTTP proxy, if a connection is up. The provider's answers (an HTTP error, a list too large)
 * are final: the tunnel would get the same.
 */
import type { Logger } from '../log/logger';
import type { FetchErrorKind, FetchOptions, FetchOutcome, SubscriptionFetcher } from './fetch';

const BLOCKED_LOOKING: ReadonlySet<FetchErrorKind> = new Set(['timeout', 'dns', 'refused', 'reset', 'tls', 'network']);

/**
 * Told of each retry through the tunnel, with the provider's `host:port` as the core's route line
 * names it; the returned function is called when the retry is over. The core's failure to reach
 * that destination is the provider's, not the working server's (app/engine/own-fetches.ts).
 */
export type TunnelAttemptListener = (destination: string) => () => void;

export class TunnelFallbackFetcher implements SubscriptionFetcher {
  constructor(
    private readonly direct: SubscriptionFetcher,
    /** The tunnel's HTTP proxy while connected (`http://127.0.0.1:10809`), else null. */
    private readonly tunnelProxy: () => string | null,
    private readonly logger: Logger,
    private readonly onTunnelAttempt: TunnelAttemptListener = () => () => undefined,
  ) {}

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchOutcome> {
    const direct = await this.direct.fetch(url, options);
    if (direct.ok || options.proxy || !BLOCKED_LOOKING.has(direct.kind)) return direct;
    const proxy = this.tunnelProxy();
    if (!proxy) return direct;
    const host = hostOf(url);
    this.logger.info('SUBSCRIPTIONS', `${host} could not be reached directly (${direct.kind}); trying through the tunnel`);
    const over = this.onTunnelAttempt(destinationOf(url));
    const tunnelled = await this.direct.fetch(url, { ...options, proxy }).finally(over);
    if (tunnelled.ok) {
      this.logger.info('SUBSCRIPTIONS', `${host} answered through the tunnel`);
      return { ...tunnelled, viaTunnel: true };
    }
    return { ...direct, message: `${direct.message}; through the tunnel too: ${tunnelled.message}` };
  }
}

/** `host:port` as a core names a destination (the scheme's port when the URL has none). */
export function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return '';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the provider';
  }
}
