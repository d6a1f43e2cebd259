/**
 * A small world for the reachability runtime's rule tests, on a fake clock: the real monitor
 * (with the monitor's fake prober) tests servers from here, each server exits in a network of
 * its own (IP info through the server answers ipapi.co JSON with its ASN), and a fake vantage
 * prober answers chained probes the way the lab would:
 *
 * - `up`: answers from here and through any vantage point;
 * - `blocked-here`: silent from here (a blackhole for the user's address), reached through others;
 * - `down`: refused from everywhere;
 * - a `blind` vantage point answers from here but reaches nothing beyond itself (its own way out
 *   is broken): every target it is asked about times out;
 * - network `offline`: every probe from here is silent and every vantage point, being reached
 *   from here first, cannot be used (an inconclusive probe).
 */
import type { Server, ServerId } from '../../../shared/domain/server';
import { type MonitorSettings, monitorSettingsSchema } from '../../../shared/settings';
import type { Clock } from '../../clock';
import { memoryLogger } from '../../log/logger';
import { fakeServer, monitorHarness } from '../../monitor/testing/harness';
import type { FakeClock } from '../../testing/fake-clock';
import type { HereProbePort, VantageProber, VantageProbeResult } from '../ports';
import { ReachabilityRuntime, type ReachabilitySettings, type VerdictChange } from '../reachability';

export type ServerState = 'up' | 'blocked-here' | 'down';

export interface WorldServer {
  id: ServerId;
  asn: string;
  country?: string;
}

export interface VantageCall {
  vantage: ServerId;
  target: ServerId;
  at: number;
  timeoutMs: number;
  result?: VantageProbeResult;
}

export class FakeVantages implements VantageProber {
  readonly calls: VantageCall[] = [];
  /** Targets this core "cannot chain" (with the reason). */
  readonly unchainable = new Map<ServerId, string>();
  /** Vantage points that answer from here but reach no target. */
  readonly blind = new Set<ServerId>();

  constructor(
    private readonly clock: Clock,
    private readonly stateOf: (id: ServerId) => ServerState,
    private readonly offline: () => boolean,
    private readonly reachedMs = 300,
    private readonly refusedMs = 1000,
  ) {}

  unsupported(_vantage: Server, target: Server): string | null {
    return this.unchainable.get(target.id) ?? null;
  }

  reachThrough(vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult> {
    const call: VantageCall = { vantage: vantage.id, target: target.id, at: this.clock.now(), timeoutMs };
    this.calls.push(call);
    let result: VantageProbeResult;
    let after: number;
    if (this.offline() || this.stateOf(vantage.id) !== 'up') {
      result = { reached: false, inconclusive: true, error: `${vantage.name} itself did not answer from here (timeout)` };
      after = timeoutMs;
    } else if (this.blind.has(vantage.id)) {
      result = { reached: false, error: 'the test URL did not answer (timeout)' };
      after = timeoutMs;
    } else if (this.stateOf(target.id) === 'down') {
      result = { reached: false, error: 'connection refused' };
      after = this.refusedMs;
    } else {
      result = { reached: true, delayMs: this.reachedMs };
      after = this.reachedMs;
    }
    return new Promise((resolve) =>
      this.clock.after(after, () => {
        call.result = result;
        resolve(result);
      }),
    );
  }

  probesOf(target: ServerId): VantageCall[] {
    return this.calls.filter((c) => c.target === target);
  }
}

export interface WorldOptions {
  servers: WorldServer[];
  monitor?: Partial<MonitorSettings>;
  trustedCheckerId?: ServerId | null;
  networkLost?: () => string | null;
  withDirectCheck?: boolean;
  clock?: FakeClock;
  /** Confirmations from here through this port instead of the monitor's own probe. */
  here?: HereProbePort;
}

export function reachabilityWorld(options: WorldOptions) {
  const states = new Map<ServerId, ServerState>(options.servers.map((s) => [s.id, 'up']));
  let offline = false;
  const servers: Server[] = options.servers.map((s) => fakeServer(s.id, { name: s.id }));
  // Everything runs while the test runs: no idle stop.
  const monitorSettings = monitorSettingsSchema.parse({ intervalMs: 60_000, urlTestTimeoutMs: 5000, idleTimeoutMs: 7 * 24 * 3600_000, ...options.monitor });
  const { logger, records } = memoryLogger('info');
  const h = monitorHarness({ servers, clock: options.clock, settings: monitorSettings, withDirectCheck: options.withDirectCheck, extra: { logger } });
  const byId = new Map(options.servers.map((s, i) => [s.id, { ...s, ip: `203.0.${i + 1}.10` }]));
  h.prober.fetchHandler = (id) => {
    const s = byId.get(id);
    if (!s) return { fail: 'refused' };
    return { status: 200, body: JSON.stringify({ ip: s.ip, country_code: s.country ?? 'DE', asn: s.asn, org: `${s.asn} network` }) };
  };
  const behave = (id: ServerId) => {
    const state = offline ? 'blocked-here' : (states.get(id) ?? 'up');
    h.prober.set(id, state === 'up' ? { answerMs: 100 } : state === 'down' ? { failMs: 200, kind: 'refused' } : { silent: true });
  };
  for (const s of options.servers) behave(s.id);

  const vantages = new FakeVantages(h.clock, (id) => states.get(id) ?? 'up', () => offline);
  let trustedCheckerId = options.trustedCheckerId ?? null;
  const settings = (): ReachabilitySettings => ({ intervalMs: monitorSettings.intervalMs, urlTestTimeoutMs: monitorSettings.urlTestTimeoutMs, trustedCheckerId });
  const runtime = new ReachabilityRuntime({
    clock: h.clock,
    logger,
    servers: () => servers,
    monitor: h.monitor,
    here: options.here ?? h.monitor,
    vantages,
    settings,
    networkLost: options.networkLost,
  });
  const changes: (VerdictChange & { at: number })[] = [];
  runtime.onChange((change) => changes.push({ ...change, at: h.clock.now() - h.t0 }));

  return {
    ...h,
    logs: records,
    runtime,
    vantages,
    changes,
    async start() {
      await h.monitor.start();
      runtime.start();
    },
    set(id: ServerId, state: ServerState) {
      states.set(id, state);
      behave(id);
    },
    setOffline(value: boolean) {
      offline = value;
      for (const s of options.servers) behave(s.id);
    },
    setTrusted(id: ServerId | null) {
      trustedCheckerId = id;
      runtime.refresh();
    },
    /** "12.3 s blocked-here" for every verdict change of `id` after the first verdicts (unknown → ok at start). */
    timeline(id: ServerId, sinceMs = 10_000): string[] {
      return changes
        .filter((c) => c.serverId === id && c.at > sinceMs && c.previous?.verdict !== c.current.verdict)
        .map((c) => `${(c.at / 1000).toFixed(1)} s ${c.current.verdict}`);
    },
    reachabilityLines(): string[] {
      return records.filter((r) => r.tag === 'MONITORING' && r.message.startsWith('reachability:')).map((r) => `${((r.at - h.t0) / 1000).toFixed(1)} ${r.message}`);
    },
  };
}
