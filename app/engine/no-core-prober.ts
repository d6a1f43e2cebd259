import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { FetchThroughResult, Readiness, ServerProber } from '../monitor/ports';
import type { TransferCourse } from '../monitor/policy/transfer';
import { tcpPing } from '../tunnel/tcp-ping';
import type { Server } from '../../shared/domain/server';

/**
 * The prober while no core is installed: nothing can be tested through a server, and the status
 * says why (the direct TCP ping still works, it needs no core).
 */
export class NoCoreProber implements ServerProber {
  constructor(private readonly reason: string) {}

  readiness(): Readiness {
    return { ready: false, reason: this.reason };
  }

  async probe(): Promise<ProbeOutcome> {
    return { ok: false, error: { kind: 'unsupported', message: this.reason } };
  }

  async fetchThrough(): Promise<FetchThroughResult> {
    return { ok: false, error: { kind: 'unsupported', message: this.reason }, elapsedMs: 0 };
  }

  async download(): Promise<TransferCourse> {
    return { kind: 'error', error: { kind: 'unsupported', message: this.reason } };
  }

  tcpPing(server: Server, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
    return tcpPing(server, timeoutMs, signal);
  }
}
