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
    dialFailure(serverId: ServerId, kind?: ProbeFailure, of?: 'destination'): void;
    tunnelConnected(serverId: ServerId): void;
    tunnelDisconnected(): void;
  };
  monitor: {
    /** Traffic came back through the tunnel at `at` (the monitor's idle rules). */
    trafficSeen(at: number): void;
    /** The tunnel connected: the monitor's connection-change tests. */
    connectionActivity(): void;
    /** The tunnel came up on a server: the servers in focus for transfer tests are read anew. */
    selectionChanged(): void;
    /** A member failed to dial: tested at once. */
    testFailedMember(serverId: ServerId): void;
  };
  /** Whether a session's destination is the app's own fetch through the tunnel (own-fetches.ts). */
  ownFetch(destination: string | null): boolean;
  /** Says in the log what a failure was taken for, when it is not the server's. */
  log(line: string): void;
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
      // The app's own fetch of a provider that failed directly too: the server carried the
      // request and the provider did not answer it. Auto hears it as the destination's failure,
      // and the monitor has no reason to test the server.
      if (targets.ownFetch(failure.destination)) {
        targets.log(`the core could not reach ${failure.destination} through the current server (${failure.kind}): the app's own fetch of that provider failed there too; taken as the provider's failure, not the server's`);
        auto.dialFailure(failure.serverId, failure.kind, 'destination');
        return;
      }
      auto.dialFailure(failure.serverId, failure.kind);
      monitor.testFailedMember(failure.serverId);
    }),
    tunnel.on('state', (state) => {
      if (state.state === 'connected' && state.serverId) {
        auto.tunnelConnected(state.serverId);
        monitor.connectionActivity();
        monitor.selectionChanged();
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
