/**
 * Where the tunnel's events go: Auto hears traffic, failed dials and the connection's state (its
 * triggers), the monitor hears them as signs of life and reasons to test, and the window gets the
 * traffic and the connection.
 */
import type { ConnectionState, TrafficSample } from '../../shared/domain/connection';
import type { ProbeFailure } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { TunnelController } from '../tunnel/controller';

export interface TunnelEventTargets {
  auto: {
    traffic(sample: TrafficSample): void;
    dialFailure(serverId: ServerId, kind?: ProbeFailure): void;
    tunnelConnected(serverId: ServerId): void;
    tunnelDisconnected(): void;
  };
  monitor: {
    /** Traffic came back through the tunnel at `at` (the monitor's idle rules). */
    trafficSeen(at: number): void;
    /** The tunnel connected: the monitor's connection-change tests. */
    connectionActivity(): void;
    /** A member failed to dial: tested at once. */
    testFailedMember(serverId: ServerId): void;
  };
  /** Whether the user wants the VPN up (a failure then is a reconnect, not a disconnect). */
  wanted(): boolean;
  publish: { traffic(sample: TrafficSample): void; connection(state: ConnectionState): void };
}

export function forwardTunnelEvents(tunnel: Pick<TunnelController, 'on'>, targets: TunnelEventTargets): () => void {
  const { auto, monitor, publish } = targets;
  const unsubscribers = [
    tunnel.on('traffic', (sample) => {
      auto.traffic(sample);
      if (sample.downBytes > 0) monitor.trafficSeen(sample.at);
      publish.traffic(sample);
    }),
    tunnel.on('dialFailure', (failure) => {
      auto.dialFailure(failure.serverId, failure.kind);
      monitor.testFailedMember(failure.serverId);
    }),
    tunnel.on('state', (state) => {
      if (state.state === 'connected' && state.serverId) {
        auto.tunnelConnected(state.serverId);
        monitor.connectionActivity();
      } else if (state.state === 'disconnected' || (state.state === 'failed' && !targets.wanted())) {
        auto.tunnelDisconnected();
      }
      publish.connection(state);
    }),
  ];
  return () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
  };
}
