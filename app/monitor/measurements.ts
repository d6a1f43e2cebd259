/**
 * Auto's store of measurements (its MeasurementPort): the last 5 of each server, read for scores,
 * and written with the results of Auto's own checks, which Auto decides to keep.
 */
import type { Measurement } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { TransferTest, TransferVerdict } from '../../shared/domain/transfer';
import type { ServerRecords } from './records';
import type { ResultWriter } from './results';
import type { StatusView } from './status-view';

export class AutoMeasurements {
  constructor(
    private readonly records: Pick<ServerRecords, 'get'>,
    private readonly view: Pick<StatusView, 'status'>,
    private readonly writer: Pick<ResultWriter, 'measurement'>,
  ) {}

  /** The last 5 measurements, of any method. */
  measurements(serverId: ServerId): readonly Measurement[] {
    return this.view.status(serverId).recent;
  }

  /** The latest result was loaded from the previous run's cache (Auto adds its penalty). */
  fromCache(serverId: ServerId): boolean {
    return this.records.get(serverId)?.last?.fromCache ?? false;
  }

  throughputBps(serverId: ServerId): number | null {
    return this.records.get(serverId)?.throughputBps ?? null;
  }

  /** The verdict of the server's latest transfer test (Auto's queue and checks read it). */
  transferVerdict(serverId: ServerId): TransferVerdict | null {
    return this.records.get(serverId)?.transfer?.verdict ?? null;
  }

  /** The server's latest transfer test, when one ran (a check asks whether it is fresh). */
  transferResult(serverId: ServerId): TransferTest | null {
    const test = this.records.get(serverId)?.transfer;
    return test ? { ...test } : null;
  }

  /** Auto commits a measurement (a URL result becomes the server's latest result), stored once. */
  record(serverId: ServerId, measurement: Measurement): void {
    this.writer.measurement(serverId, measurement, false);
  }
}
