import type { Clock } from '../clock';

/** What the port reads: Auto's view of the network (Auto is built after reachability, which asks). */
export interface NetworkLossSource {
  snapshot(): { networkLostUntil: number | null; networkSilentSince?: number | null };
}

/**
 * The port through which reachability hears that Auto found the network lost (then no server is
 * blamed). Reachability is built first and Auto needs it, so Auto is plugged in once it exists;
 * until then, and without Auto, the network is not known to be lost.
 */
export class NetworkLossPort {
  private source: NetworkLossSource | null = null;

  constructor(private readonly clock: Clock) {}

  connect(source: NetworkLossSource): void {
    this.source = source;
  }

  /** Why the network counts as lost now, or null. */
  reason(): string | null {
    const seen = this.source?.snapshot();
    if ((seen?.networkLostUntil ?? 0) > this.clock.now()) return 'Auto found the network lost';
    return (seen?.networkSilentSince ?? null) !== null ? 'no server of any subscription answers' : null;
  }
}
