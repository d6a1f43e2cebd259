import type { ConnectionState } from '../../../shared/domain/connection';
import { type ProxyTarget, proxyTargetFromConnection } from '../target';

/**
 * What the OS proxy should be, given the setting and the connection:
 * - a target while connected with the setting on;
 * - `null` (the user's own settings) when the setting is off, or the app is disconnected or failed
 *   (a proxy pointing at a tunnel that is not there would cut the user off);
 * - `'keep'` while connecting or reconnecting: Auto switching servers keeps the same local
 *   inbound, so the OS proxy must not flap on every switch.
 */
export function desiredSystemProxy(systemProxyOn: boolean, connection: ConnectionState): ProxyTarget | null | 'keep' {
  if (!systemProxyOn) return null;
  switch (connection.state) {
    case 'connected':
      return proxyTargetFromConnection(connection);
    case 'connecting':
    case 'reconnecting':
      return 'keep';
    case 'disconnected':
    case 'failed':
      return null;
  }
}

export function sameTarget(a: ProxyTarget | null, b: ProxyTarget | null): boolean {
  if (a === null || b === null) return a === b;
  return a.host === b.host && a.httpPort === b.httpPort && a.socksPort === b.socksPort;
}
