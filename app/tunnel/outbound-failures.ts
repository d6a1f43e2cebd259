/**
 * Follows a core's connections through its log and says which outbound a failure belongs to.
 * The failure line itself names no outbound, only the session and the server's address; the
 * route line of the same session ("taking detour [tag]", or "default route") names the outbound.
 * Also spots the earliest sign of a failing dial: a second dial of the same session.
 */
import { interpretCoreLine, type OutboundFailureKind } from './core-log';

export interface AttributedFailure {
  /** The outbound the session went to; null when its route line was not seen. */
  outboundTag: string | null;
  /**
   * Where the session was going (`host:port`, as its route line names it: `tcp:` dropped), when
   * its route line was seen: through a working server, a failure may be this destination's.
   */
  destination: string | null;
  sessionId: string | null;
  kind: OutboundFailureKind;
  /** The server address the core names (host:port or host), when it names one. */
  address: string | null;
  detail: string;
}

export interface DialRetry {
  outboundTag: string | null;
  sessionId: string;
  address: string;
  /** 2 for the first retry. */
  attempt: number;
}

export interface OutboundFailureHandlers {
  failure?: (failure: AttributedFailure) => void;
  retry?: (retry: DialRetry) => void;
  /** The core said it started. */
  started?: (version: string) => void;
}

const MAX_SESSIONS = 4096;

export class OutboundFailureTracker {
  /** sessionId → outbound tag, oldest first (a Map keeps insertion order). */
  private readonly routes = new Map<string, string>();
  /** sessionId → the destination its route line named. */
  private readonly destinations = new Map<string, string>();
  private readonly dials = new Map<string, number>();

  /**
   * @param defaultTag the outbound a "default route" session goes to (the config's first).
   */
  constructor(
    private readonly handlers: OutboundFailureHandlers,
    private readonly defaultTag: string | null = null,
  ) {}

  /** Feed every line the core writes. */
  line(raw: string): void {
    const event = interpretCoreLine(raw);
    if (!event) return;
    switch (event.type) {
      case 'started':
        this.handlers.started?.(event.version);
        return;
      case 'route': {
        const tag = event.outboundTag ?? this.defaultTag;
        if (tag !== null) this.remember(this.routes, event.sessionId, tag);
        this.remember(this.destinations, event.sessionId, event.destination.replace(/^(?:tcp|udp):/, ''));
        return;
      }
      case 'dialing': {
        const attempt = (this.dials.get(event.sessionId) ?? 0) + 1;
        this.remember(this.dials, event.sessionId, attempt);
        if (attempt >= 2) {
          this.handlers.retry?.({ outboundTag: this.routes.get(event.sessionId) ?? null, sessionId: event.sessionId, address: event.address, attempt });
        }
        return;
      }
      case 'outbound-failure': {
        // sing-box names the outbound in the failure itself; the v2ray family only in the session's route line.
        const tag = event.outboundTag ?? (event.sessionId ? (this.routes.get(event.sessionId) ?? null) : null);
        const destination = event.sessionId ? (this.destinations.get(event.sessionId) ?? null) : null;
        if (event.sessionId) {
          this.routes.delete(event.sessionId);
          this.dials.delete(event.sessionId);
          this.destinations.delete(event.sessionId);
        }
        this.handlers.failure?.({ outboundTag: tag, sessionId: event.sessionId, kind: event.kind, address: event.address, destination, detail: event.detail });
        return;
      }
      default:
        return;
    }
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_SESSIONS) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }
}
