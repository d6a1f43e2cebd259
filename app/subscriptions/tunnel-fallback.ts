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

export class TunnelFallbackFetcher implements SubscriptionFetcher {
  constructor(
    private readonly direct: SubscriptionFetcher,
    /** The tunnel's HTTP proxy while connected (`http://127.0.0.1:10809`), else null. */
    private readonly tunnelProxy: () => string | null,
    private readonly logger: Logger,
  ) {}

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchOutcome> {
    const direct = await this.direct.fetch(url, options);
    if (direct.ok || options.proxy || !BLOCKED_LOOKING.has(direct.kind)) return direct;
    const proxy = this.tunnelProxy();
    if (!proxy) return direct;
    const host = hostOf(url);
    this.logger.info('SUBSCRIPTIONS', `${host} could not be reached directly (${direct.kind}); trying through the tunnel`);
    const tunnelled = await this.direct.fetch(url, { ...options, proxy });
    if (tunnelled.ok) {
      this.logger.info('SUBSCRIPTIONS', `${host} answered through the tunnel`);
      return { ...tunnelled, viaTunnel: true };
    }
    return { ...direct, message: `${direct.message}; through the tunnel too: ${tunnelled.message}` };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the provider';
  }
}
