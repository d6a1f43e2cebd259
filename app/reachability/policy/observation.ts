import type { ServerId } from '../../../shared/domain/server';
import type { ExitNetwork } from './exit-network';

/** What one probe through a vantage point found (only conclusive probes are observations). */
export interface VantageObservation {
  vantageId: ServerId;
  vantageName: string;
  network: ExitNetwork;
  reached: boolean;
  at: number;
  /** Why not reached, as the prober classified it. */
  error?: string;
}
