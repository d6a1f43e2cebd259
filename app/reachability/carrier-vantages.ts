/**
 * The outside view for every server the app carries: a chain a core can dial goes to that core's
 * chained prober. The main core (Xray) chains what it speaks; a server only sing-box carries
 * (TUIC, AnyTLS, ShadowTLS, Hysteria v1) is dialled through the vantage by a sing-box chained
 * prober, as the monitor probes it with sing-box (app/tunnel/carrier-prober.ts). Without this,
 * such a server's reachability could only ever be "unknown". Each core starts only when a probe
 * needs it.
 */
import type { Server } from '../../shared/domain/server';
import type { CoreProfile } from '../core';
import { ChainedProber, type ChainedProberOptions } from './chained-prober';
import type { VantageProber, VantageProbeResult } from './ports';

export class CarrierVantages implements VantageProber {
  /** The main core's first: it is asked first, so what it can chain stays with it. */
  private readonly probers: ChainedProber[];

  constructor(options: ChainedProberOptions & { carriers: readonly CoreProfile[] }) {
    const { carriers, ...main } = options;
    this.probers = [new ChainedProber(main), ...carriers.map((core) => new ChainedProber({ ...main, core }))];
  }

  /** The prober whose core can dial `target` through `vantage`, if any. */
  private proberFor(vantage: Server, target: Server): ChainedProber | null {
    return this.probers.find((p) => p.unsupported(vantage, target) === null) ?? null;
  }

  /** Null when some core can; else the main core's reason, the one a user's setup is about. */
  unsupported(vantage: Server, target: Server): string | null {
    return this.proberFor(vantage, target) ? null : (this.probers[0] as ChainedProber).unsupported(vantage, target);
  }

  reachThrough(vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult> {
    return (this.proberFor(vantage, target) ?? (this.probers[0] as ChainedProber)).reachThrough(vantage, target, timeoutMs);
  }

  async stop(): Promise<void> {
    await Promise.all(this.probers.map((p) => p.stop()));
  }
}
