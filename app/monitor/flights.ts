/**
 * One URL test of a server at a time (spec/monitor.md): a test requested while another of the same
 * server is in flight joins it and gets its result, so each server is pinged once and a late
 * failure can never overwrite a fresher answer.
 *
 * Every flight also carries the two guards of the spec:
 * - the hung-test guard: a probe that has not returned after 3 × its timeout + 2 s counts as
 *   failed and the flight ends (the probe is aborted and left behind);
 * - the network-change cut: a probe in flight when the network changes is aborted, and run again
 *   once the network has settled (its first outcome measured a path that no longer exists).
 */
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { Clock } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';
import { hungGuardMs } from './policy/timing';
import type { ServerProber } from './ports';
import type { ServerDirectory } from './servers';
import type { NetworkSettling } from './settle';

export interface FlightResult {
  /** Orders the flights of one server (see ServerRecords.applyUrlOutcome). */
  flight: number;
  outcome: ProbeOutcome;
  /** When the outcome arrived. */
  at: number;
}

export interface Flight {
  flight: number;
  serverId: ServerId;
  startedAt: number;
  timeoutMs: number;
  promise: Promise<FlightResult>;
}

export interface FlightsOptions {
  prober: ServerProber;
  clock: Clock;
  /** The front address each server dials, for the per-front count. */
  servers: Pick<ServerDirectory, 'frontOf'>;
  /** When a probe cut by a network change may run again. */
  settling: Pick<NetworkSettling, 'settled'>;
  onListenerError?: ListenerErrorSink;
}

export class Flights {
  private flights = new Map<ServerId, Flight>();
  private probesByFront = new Map<string, number>();
  private controllers = new Set<AbortController>();
  private cutControllers = new WeakSet<AbortController>();
  private nextFlight = 1;
  private probes = 0;
  /** A probe ended (so a waiting batch, or a transfer test waiting for a worker, may start). */
  readonly probeEnded: Signal<void>;

  constructor(private readonly options: FlightsOptions) {
    this.probeEnded = new Signal('probe ended', options.onListenerError);
  }

  /** The flight of this server now in the air, if any. */
  current(serverId: ServerId): Flight | undefined {
    return this.flights.get(serverId);
  }

  /** Probes now running to servers behind this front address. */
  probesToFront(front: string): number {
    return this.probesByFront.get(front) ?? 0;
  }

  probesRunning(): number {
    return this.probes;
  }

  /** Joins the flight of `serverId` in the air, or starts one. */
  probe(serverId: ServerId, url: string, timeoutMs: number): Flight {
    const existing = this.flights.get(serverId);
    if (existing) return existing;
    const flight = this.nextFlight++;
    const entry: Flight = {
      flight,
      serverId,
      startedAt: this.options.clock.now(),
      timeoutMs,
      promise: this.fly(serverId, url, timeoutMs, flight).finally(() => {
        if (this.flights.get(serverId) === entry) this.flights.delete(serverId);
      }),
    };
    this.flights.set(serverId, entry);
    return entry;
  }

  /** The network changed: abort every probe in the air; their flights rerun once it settles. */
  cutAll(): number {
    let cut = 0;
    for (const controller of this.controllers) {
      this.cutControllers.add(controller);
      controller.abort();
      cut++;
    }
    return cut;
  }

  /** Stops everything (the monitor is shutting down). */
  abortAll(): void {
    for (const controller of this.controllers) controller.abort();
  }

  private async fly(serverId: ServerId, url: string, timeoutMs: number, flight: number): Promise<FlightResult> {
    for (;;) {
      const controller = new AbortController();
      const outcome = await this.guarded(serverId, url, timeoutMs, controller);
      if (this.cutControllers.has(controller)) {
        // Cut by a network change: the answer (or failure) belongs to the old network.
        await this.options.settling.settled();
        continue;
      }
      return { flight, outcome, at: this.options.clock.now() };
    }
  }

  private guarded(serverId: ServerId, url: string, timeoutMs: number, controller: AbortController): Promise<ProbeOutcome> {
    const { prober, clock, servers } = this.options;
    const front = servers.frontOf(serverId);
    this.controllers.add(controller);
    this.probes++;
    this.probesByFront.set(front, this.probesToFront(front) + 1);
    let finished = false;
    const done = () => {
      if (finished) return false;
      finished = true;
      this.controllers.delete(controller);
      this.probes--;
      this.probesByFront.set(front, this.probesToFront(front) - 1);
      queueMicrotask(() => this.probeEnded.emit());
      return true;
    };
    return new Promise<ProbeOutcome>((resolve) => {
      const guardMs = hungGuardMs(timeoutMs);
      const guard = clock.after(guardMs, () => {
        if (!done()) return;
        controller.abort();
        resolve({
          ok: false,
          error: { kind: 'timeout', message: `the test did not return within ${guardMs / 1000} s and was abandoned` },
        });
      });
      prober.probe(serverId, { url, timeoutMs, signal: controller.signal }).then(
        (outcome) => {
          guard.cancel();
          if (done()) resolve(outcome);
        },
        (error: unknown) => {
          guard.cancel();
          const message = error instanceof Error ? error.message : String(error);
          if (done()) resolve({ ok: false, error: { kind: 'unknown', message } });
        },
      );
    });
  }
}
