import type { LogRecord } from '../../../app/log/logger';
import { interpretCoreLine, parseCoreLogLine } from '../../../app/tunnel/core-log';

/** Which of the engine's cores made a dial: the tunnel (the user's traffic) or a prober core. */
export type DialingCore = 'tunnel' | 'prober';

export interface Dial {
  at: number;
  core: DialingCore;
  /** The core's session id (one per proxied connection; its retries share it). */
  session: string;
  /** host:port the core dialled (a lab relay). */
  address: string;
}

export interface CoreFailure {
  at: number;
  core: DialingCore;
  session: string;
  kind: string;
}

/** One session's dialling as the core logged it: first dial, attempts, and when it gave up. */
export interface SessionDials {
  session: string;
  address: string;
  firstDialAt: number;
  /** Dial attempts (1 = no retry). */
  attempts: number;
  /** The second attempt (the earliest sign of a failing dial), if any. */
  retryAt: number | null;
  /** The core's "failed to process outbound traffic" line for the session, if any. */
  failedAt: number | null;
  kind: string | null;
}

/**
 * Every dial the engine's cores make, read from their own log (the engine passes each core line
 * to the logger at debug level, tagged TUNNEL for the tunnel core and PROBER for the prober and
 * reachability cores). v2ray 4.34 logs one line per TCP dial attempt, retries included:
 * `transport/internet/tcp: dialing TCP to tcp:host:port` for plain TCP and TLS,
 * `transport/internet/websocket: creating connection to tcp:host:port` for WebSocket.
 * This is how the bench tells probe connections from traffic connections: the lab's relay sees
 * both coming from 127.0.0.1, but only the prober cores dial for probes.
 */
export class DialLog {
  readonly dials: Dial[] = [];
  readonly failures: CoreFailure[] = [];

  /** A logger sink. */
  readonly sink = (record: LogRecord): void => {
    if (record.level !== 'debug' || !record.message.startsWith('core: ')) return;
    const core: DialingCore | null = record.tag === 'TUNNEL' ? 'tunnel' : record.tag === 'PROBER' ? 'prober' : null;
    if (!core) return;
    const line = record.message.slice('core: '.length);
    const dial = dialOf(line);
    if (dial) {
      this.dials.push({ at: record.at, core, ...dial });
      return;
    }
    const event = interpretCoreLine(line);
    if (event?.type === 'outbound-failure' && event.sessionId) this.failures.push({ at: record.at, core, session: event.sessionId, kind: event.kind });
  };

  /** Dials in [from, to]. */
  between(from: number, to: number): Dial[] {
    return this.dials.filter((d) => d.at >= from && d.at <= to);
  }

  /** The sessions of `core` whose first dial to `address` came at or after `since`, oldest first. */
  sessions(core: DialingCore, address: string, since: number): SessionDials[] {
    const out = new Map<string, SessionDials>();
    const older = new Set<string>();
    for (const d of this.dials) {
      if (d.core !== core || d.address !== address || older.has(d.session)) continue;
      const known = out.get(d.session);
      if (known) {
        known.attempts += 1;
        known.retryAt ??= d.at;
      } else if (d.at < since) {
        older.add(d.session);
      } else {
        out.set(d.session, { session: d.session, address, firstDialAt: d.at, attempts: 1, retryAt: null, failedAt: null, kind: null });
      }
    }
    for (const f of this.failures) {
      const s = f.core === core ? out.get(f.session) : undefined;
      if (s && s.failedAt === null) {
        s.failedAt = f.at;
        s.kind = f.kind;
      }
    }
    return [...out.values()];
  }
}

const DIAL = /transport\/internet\/\w+: (?:dialing (?:TCP )?to|creating connection to) (?:tcp:)?(\S+)/;

/** The session and address a core line says is being dialled, or null. */
export function dialOf(line: string): { session: string; address: string } | null {
  const { text, sessionId } = parseCoreLogLine(line);
  const m = DIAL.exec(text);
  return m && sessionId ? { session: sessionId, address: m[1] as string } : null;
}
