/**
 * TCP and ICMP tests made when the user asks, straight to the server's own address, not through
 * any proxy: a connect to its port, or an echo through the system's `ping`. They tell "the
 * server's address answers but its proxy does not" (a URL test failing beside a TCP answer) from
 * "the address itself is unreachable from here". The result is recorded as the server's latest
 * measurement, of its own method, so Auto's score reads it like any other (spec/auto.md: the
 * measurements of the latest one's method count).
 */
import type { DirectMethod, DirectTestOutcome, Measurement, ProbeOutcome } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { Clock } from '../clock';
import { type IcmpPing, icmpPing } from './icmp';
import type { ServerProber } from './ports';
import type { ResultWriter } from './results';
import type { ServerDirectory } from './servers';

export interface DirectTestsDeps {
  clock: Clock;
  prober: Pick<ServerProber, 'tcpPing'>;
  servers: Pick<ServerDirectory, 'get'>;
  writer: Pick<ResultWriter, 'measurement'>;
  timeoutMs: () => number;
  icmp?: IcmpPing;
  log: (line: string) => void;
}

export class DirectTests {
  constructor(private readonly deps: DirectTestsDeps) {}

  async measure(serverId: ServerId, method: DirectMethod): Promise<DirectTestOutcome> {
    const { clock, servers, log } = this.deps;
    const server = servers.get(serverId);
    if (!server) return { method, available: false, reason: 'no such server' };
    let outcome: ProbeOutcome;
    if (method === 'tcp') {
      outcome = await this.deps.prober.tcpPing(server, this.deps.timeoutMs());
    } else {
      const echo = await (this.deps.icmp ?? icmpPing)(server.address, this.deps.timeoutMs());
      if ('unavailable' in echo) {
        log(`ICMP test of ${server.name}: unavailable (${echo.reason})`);
        return { method, available: false, reason: echo.reason };
      }
      outcome = echo;
    }
    const measurement: Measurement = { at: clock.now(), method, delayMs: outcome.ok ? outcome.delayMs : null };
    if (!outcome.ok) measurement.error = outcome.error.kind;
    log(`${method.toUpperCase()} test of ${server.name} (on request): ${outcome.ok ? `${Math.round(outcome.delayMs)} ms` : `failed (${outcome.error.kind})`}`);
    this.deps.writer.measurement(serverId, measurement, true);
    return { method, available: true, measurement };
  }
}
