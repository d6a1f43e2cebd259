/**
 * What a change of the chains chosen in servers' details means (pure; chain-changes.test.ts): the
 * servers whose path changed are measured again (their results were taken by the old path), and
 * the tunnel starts again when the server it is on is one of them.
 */
import type { ServerId } from '../../shared/domain/server';
import type { Chains } from '../../shared/settings';

export interface ChainChange {
  /** Servers whose chosen front changed (set, moved or removed). */
  changed: ServerId[];
  /** The tunnel's server is one of them: its core starts again on the new path. */
  reconnect: boolean;
}

export function chainChange(previous: Chains, next: Chains, current: ServerId | null): ChainChange {
  const ids = new Set([...Object.keys(previous), ...Object.keys(next)]);
  const changed = [...ids].filter((id) => previous[id] !== next[id]);
  return { changed, reconnect: current !== null && changed.includes(current) };
}
