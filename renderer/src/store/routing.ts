/**
 * The routing in force as the host says it (preset, its data's date, what differs from the
 * settings), and the direct traffic's rates beside the server's.
 */
import { GLOBAL_ROUTING_VIEW, type RoutingView } from '../../../shared/domain/routing';
import type { AppState, SliceDeps } from './types';

export interface RoutingSlice {
  routing: RoutingView;
  setRouting(routing: RoutingView): void;
}

export const routingInitialState: Pick<RoutingSlice, 'routing'> = { routing: GLOBAL_ROUTING_VIEW };

export function createRoutingSlice(deps: SliceDeps): RoutingSlice {
  return { ...routingInitialState, setRouting: (routing) => deps.set({ routing }) };
}

/** The samples the rates are averaged over (as the server's rates are). */
const RATE_WINDOW_SAMPLES = 3;

export interface DirectRates {
  upBytesPerSecond: number;
  downBytesPerSecond: number;
  /** Whether the core reports direct traffic at all (routing sends some past the server). */
  reported: boolean;
}

/** Bytes per second that went direct, averaged over the latest samples; zero while not connected. */
export function selectDirectRates(state: Pick<AppState, 'traffic' | 'connection'>): DirectRates {
  const window = state.connection.state === 'connected' ? state.traffic.slice(-RATE_WINDOW_SAMPLES) : [];
  const reported = window.some((s) => s.direct !== undefined);
  const ms = window.reduce((sum, s) => sum + Math.max(0, s.intervalMs), 0);
  if (!reported || ms <= 0) return { upBytesPerSecond: 0, downBytesPerSecond: 0, reported };
  const up = window.reduce((sum, s) => sum + (s.direct?.upBytes ?? 0), 0);
  const down = window.reduce((sum, s) => sum + (s.direct?.downBytes ?? 0), 0);
  return { upBytesPerSecond: (up * 1000) / ms, downBytesPerSecond: (down * 1000) / ms, reported };
}
