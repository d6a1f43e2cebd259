/**
 * Tests made for Auto and for reachability's confirmations from here: a URL test that joins the
 * one in flight (giving up at the caller's own deadline) or starts one, and is never recorded, so
 * measurements made while the network is lost are never kept (Auto decides what to record); and
 * Auto's transfer test of a server whose traffic stalled.
 */
import type { ProbeFailure } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { TransferVerdict } from '../../shared/domain/transfer';
import type { MonitorSettings } from '../../shared/settings';
import type { Clock } from '../clock';
import type { FlightResult, Flights } from './flights';
import type { ServerDirectory } from './servers';
import type { TestUrls } from './test-urls';
import type { TransferTests } from './transfer-tests';

export interface ProbeAnswer {
  /** null: no answer within the timeout, or a failure. */
  delayMs: number | null;
  error?: ProbeFailure;
  /** When the outcome arrived: passed back with a measurement, it is stored once. */
  at: number;
}

export class AutoProbes {
  constructor(
    private readonly clock: Clock,
    private readonly settings: () => MonitorSettings,
    private readonly servers: Pick<ServerDirectory, 'get'>,
    private readonly urls: Pick<TestUrls, 'current'>,
    private readonly flights: Pick<Flights, 'probe'>,
    private readonly transfers: Pick<TransferTests, 'testNow'>,
  ) {}

  /** One URL test, joined when one is in flight, never recorded, never rejects. */
  async probe(serverId: ServerId, timeoutMs: number): Promise<ProbeAnswer> {
    const flight = this.flights.probe(serverId, this.urls.current(), timeoutMs);
    const joined = flight.startedAt < this.clock.now() || flight.timeoutMs > timeoutMs;
    const { outcome, at } = joined ? await this.withDeadline(flight.promise, timeoutMs) : await flight.promise;
    return outcome.ok ? { delayMs: outcome.delayMs, at } : { delayMs: null, error: outcome.error.kind, at };
  }

  /**
   * A transfer test now, beside the workers (joined if one runs), recorded as the server's
   * latest. Its verdict, or null when it could not be made.
   */
  async transferTest(serverId: ServerId): Promise<TransferVerdict | null> {
    if (!this.servers.get(serverId) || this.settings().transferTestBytes <= 0) return null;
    return (await this.transfers.testNow(serverId))?.verdict ?? null;
  }

  private withDeadline(promise: Promise<FlightResult>, ms: number): Promise<FlightResult> {
    const { clock } = this;
    return new Promise((resolve) => {
      const timer = clock.after(ms, () =>
        resolve({ flight: 0, at: clock.now(), outcome: { ok: false, error: { kind: 'timeout', message: `no answer within ${ms} ms` } } }),
      );
      void promise.then((result) => {
        timer.cancel();
        resolve(result);
      });
    });
  }
}
