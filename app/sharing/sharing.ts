/**
 * Household sharing's view for the Settings page: the addresses to pick from, where the shared
 * proxies listen now, and the refused logins the tunnel reports (counted since the app started).
 * The credentials are handed out only when asked for (the page's "Show").
 */
import type { Settings } from '../../shared/settings';
import type { SharingCredentials, SharingView } from '../../shared/sharing';
import { notPrivateAddresses, privateAddresses } from './lan-addresses';

export interface SharingDeps {
  settings(): Pick<Settings, 'httpPort' | 'socksPort' | 'sharing'>;
  /** The tunnel is up (its inbounds, the shared ones with them, are listening). */
  connected(): boolean;
  credentials(): SharingCredentials;
  addresses?: () => SharingView['addresses'];
  notPrivate?: () => SharingView['notPrivate'];
}

export class HouseholdSharing {
  private failed = 0;
  private lastFailedAt: number | null = null;

  constructor(private readonly deps: SharingDeps) {}

  loginRefused(at: number): void {
    this.failed += 1;
    this.lastFailedAt = at;
  }

  view(): SharingView {
    const { httpPort, socksPort, sharing } = this.deps.settings();
    const host = sharing.address.includes(':') ? `[${sharing.address}]` : sharing.address;
    return {
      addresses: (this.deps.addresses ?? privateAddresses)(),
      notPrivate: (this.deps.notPrivate ?? notPrivateAddresses)(),
      listening: sharing.enabled && this.deps.connected() ? { httpProxy: `http://${host}:${httpPort}`, socksProxy: `socks5://${host}:${socksPort}` } : null,
      failedLogins: this.failed,
      lastFailedAt: this.lastFailedAt,
    };
  }

  /** Made on first use: asking to see them is a use. */
  credentials(): SharingCredentials {
    return this.deps.credentials();
  }
}
