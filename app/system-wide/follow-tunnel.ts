import type { ConnectionState } from '../../shared/domain/connection';
import type { TunnelController } from '../tunnel/controller';

/** What a system-wide capture does as the tunnel goes (Linux's nftables rules, the TUN elsewhere). */
export interface TunnelFollower {
  /** The tunnel is up (first connect, or again after its core restarted): put the capture in place. */
  connected(state: ConnectionState): void;
  /** Disconnected or failed: remove the capture and end the privileged side. */
  ended(): void;
  /** The core died: lift the capture so traffic flows direct, not into nothing, until it is back. */
  coreExited(): void;
}

/** Follows the tunnel's state and core exits; returns the unsubscribe function. */
export function followTunnel(tunnel: Pick<TunnelController, 'on'>, follower: TunnelFollower): () => void {
  const offs = [
    tunnel.on('state', (state) => {
      if (state.state === 'connected') follower.connected(state);
      else if (state.state === 'disconnected' || state.state === 'failed') follower.ended();
    }),
    tunnel.on('coreExit', () => follower.coreExited()),
  ];
  return () => offs.forEach((off) => off());
}
