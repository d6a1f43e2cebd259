/**
 * The prober as one kind of test sees it, counting what each call moves through the server into
 * the ledger (policy/traffic-cost.ts: the requests and responses as sent and received, headers
 * included, the handshakes estimated). The monitor's parts each get the one of their kind, so
 * every byte is counted where the test is made and nowhere else.
 */
import type { ServerId } from '../../shared/domain/server';
import type { TestKind } from '../../shared/domain/test-traffic';
import { DOWNLOAD_HEADERS, type Exchange, exchangeBytes, PROBE_HEADERS, type ServerShape } from './policy/traffic-cost';
import type { ServerProber } from './ports';
import type { TestTrafficLedger } from './test-traffic';

export function countedProber(prober: ServerProber, ledger: Pick<TestTrafficLedger, 'add'>, kind: TestKind, serverOf: (id: ServerId) => ServerShape | undefined): ServerProber {
  const count = (id: ServerId, exchange: Exchange) => {
    const server = serverOf(id);
    if (server) ledger.add(id, kind, exchangeBytes(server, exchange));
  };
  return {
    async probe(id, request) {
      const outcome = await prober.probe(id, request);
      // A warm-up request and the timed one on one connection; an HTTP status error still answered.
      const answered = outcome.ok || outcome.error.kind === 'http-status';
      count(id, { url: request.url, requests: 2, headers: PROBE_HEADERS, answered, bodyBytes: 0 });
      return outcome;
    },
    async fetchThrough(id, request) {
      const result = await prober.fetchThrough(id, request);
      count(id, { url: request.url, requests: 1, headers: PROBE_HEADERS, answered: result.ok, bodyBytes: result.ok ? result.body.length : 0 });
      return result;
    },
    async download(id, request) {
      const course = await prober.download(id, request);
      // A download cut short (cancelled, or failed mid-body) still brought what came before.
      const partial = course.kind === 'error' ? (course.bytes ?? 0) : 0;
      const answered = (course.kind !== 'silent' && course.kind !== 'error') || partial > 0;
      count(id, { url: request.url, requests: 1, headers: DOWNLOAD_HEADERS, answered, bodyBytes: course.kind === 'error' ? partial : course.kind === 'silent' ? 0 : course.bytes });
      return course;
    },
    // To the server's own address, not through it: nothing of the server's traffic.
    tcpPing: (server, timeoutMs, signal) => prober.tcpPing(server, timeoutMs, signal),
    readiness: (id) => prober.readiness(id),
  };
}
