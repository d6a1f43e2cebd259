/**
 * The destinations the app itself is asking for through the tunnel (a subscription retried there
 * after its direct fetch failed). A core's failure to reach one of them is that destination's
 * failure, not the working server's: the server carried the request, the provider did not answer
 * it. Such a failure stays known for a grace period after the fetch ends, since the core's log
 * line may arrive after the fetch has already seen the proxy's error.
 */
import type { Clock } from '../clock';

export const OWN_FETCH_GRACE_MS = 5000;

export class OwnFetchDestinations {
  /** destination → fetches under way, and until when it counts once none is. */
  private readonly entries = new Map<string, { running: number; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly graceMs = OWN_FETCH_GRACE_MS,
  ) {}

  /** A fetch of `destination` (`host:port`) through the tunnel begins; call the result when it ends. */
  begin(destination: string): () => void {
    const key = destination.toLowerCase();
    const entry = this.entries.get(key) ?? { running: 0, until: 0 };
    this.entries.set(key, { ...entry, running: entry.running + 1 });
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const current = this.entries.get(key);
      if (current) this.entries.set(key, { running: current.running - 1, until: this.clock.now() + this.graceMs });
    };
  }

  /** Whether a failure of a session to `destination` is the app's own fetch failing there. */
  has(destination: string | null): boolean {
    if (!destination) return false;
    const key = destination.toLowerCase();
    const entry = this.entries.get(key);
    if (!entry) return false;
    if (entry.running > 0 || this.clock.now() <= entry.until) return true;
    this.entries.delete(key);
    return false;
  }
}
