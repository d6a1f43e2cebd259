/**
 * The core's floor for a reset server: how long the tunnel core takes, from a *new* dial to a
 * server that resets, to say the dial failed, and when its earlier sign (a second dial of the
 * same session) comes. Measured on a tunnel of its own (not the engine's: Auto must not see these
 * faults) for every lab server, so each protocol and transport shows its own figure: v2ray 4.34
 * retries a dial that fails inside the transport's Dial (a WebSocket upgrade, or a TCP connect the
 * RST beat) and reports a reset after the connect at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectCore, isCoreName } from '../../../app/core';
import { Logger } from '../../../app/log/logger';
import { type DialFailureEvent, type DialRetryEvent, TunnelController } from '../../../app/tunnel/controller';
import { freePorts } from '../../../app/tunnel/ports';
import { requestThroughProxy } from '../../../app/tunnel/proxy-request';
import { labCore } from '../../../app/core/testing/cores';
import { serversFromLinks } from '../../../app/tunnel/testing/lab-servers';
import type { Lab, LabServerInfo } from '../../lab';
import { DialLog } from './dial-log';
import { sleep } from './world';

export interface FloorSample {
  server: string;
  kind: string;
  /** Dial attempts the core made for the request's session. */
  attempts: number;
  /** First dial → second dial (the earliest sign), ms; null: no retry. */
  retry_ms: number | null;
  /** First dial → the core's failure line, ms. */
  give_up_ms: number | null;
  failure_kind: string | null;
  /** Whether the tunnel controller emitted `dialRetrying` / `dialFailure` for it. */
  dial_retrying_event: boolean;
  dial_failure_event: boolean;
}

/** A server the core could not connect to on its own (it does not carry that kind). */
export interface FloorSkip {
  server: string;
  kind: string;
  round: number;
  /** false: the core does not carry the kind (left out of every round); true: this start failed. */
  carried: boolean;
  reason: string;
}

/**
 * `core`: a core's name (`xray`, `v2ray`: the one this machine has) or its path; `servers`: the
 * lab servers to time (every one by default). A server the core does not carry is skipped, with
 * the tunnel's reason.
 */
export async function measureResetFloor(lab: Lab, rounds: number, core = 'v2ray', only?: readonly LabServerInfo[]): Promise<{ samples: FloorSample[]; skipped: FloorSkip[] }> {
  const corePath = isCoreName(core) ? labCore(core) : core;
  const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-bench-floor-'));
  const dials = new DialLog();
  const logger = new Logger({ level: 'debug', sinks: [(record) => dials.sink({ ...record, tag: 'TUNNEL' })] });
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const tunnel = new TunnelController({ core: await detectCore(corePath), runtimeDir, logger, httpPort, socksPort });
  const retries: DialRetryEvent[] = [];
  const failures: DialFailureEvent[] = [];
  tunnel.on('dialRetrying', (r) => retries.push(r));
  tunnel.on('dialFailure', (f) => failures.push(f));
  const proxy = `http://127.0.0.1:${httpPort}`;
  const labServers = only ?? lab.info.servers;
  const servers = serversFromLinks(labServers.map((s) => s.shareLink));
  const samples: FloorSample[] = [];
  const skipped: FloorSkip[] = [];
  const kindOf = (i: number) => labServers[i]!.kind ?? `${servers[i]!.protocol}/${servers[i]!.transport.network}/${servers[i]!.security.type}`;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i, server] of servers.entries()) {
        const labServer = labServers[i]!;
        if (skipped.some((s) => s.server === labServer.id && !s.carried)) continue;
        try {
          await tunnel.connect(server);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          // Only a kind the core does not carry is left out for good; a start that failed for
          // another reason (a port taken on a busy machine) misses this round alone.
          skipped.push({ server: labServer.id, kind: kindOf(i), round: round + 1, carried: !/not supported by/.test(reason), reason });
          continue;
        }
        // One answered request first: the core is up and the server works.
        await requestThroughProxy({ proxyUrl: proxy, url: lab.info.target, timeoutMs: 5000, maxBytes: 0 });
        await lab.setFault(labServer.id, { fault: 'reset' });
        const since = Date.now();
        const retriesBefore = retries.length;
        const failuresBefore = failures.length;
        await requestThroughProxy({ proxyUrl: proxy, url: lab.info.target, timeoutMs: 5000, maxBytes: 0 });
        await sleep(300);
        await lab.setFault(labServer.id, { fault: 'none' });
        const session = dials.sessions('tunnel', labServer.relay, since)[0];
        samples.push({
          server: labServer.id,
          kind: kindOf(i),
          attempts: session?.attempts ?? 0,
          retry_ms: session?.retryAt != null ? session.retryAt - session.firstDialAt : null,
          give_up_ms: session?.failedAt != null ? session.failedAt - session.firstDialAt : null,
          failure_kind: session?.kind ?? null,
          dial_retrying_event: retries.length > retriesBefore,
          dial_failure_event: failures.length > failuresBefore,
        });
      }
    }
  } finally {
    await tunnel.disconnect();
    await rm(runtimeDir, { recursive: true, force: true });
  }
  return { samples, skipped };
}
