import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../shared/domain/measurement';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { memoryLogger } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import type { PersistedAutoState } from './policy/state';
import type { SubscriptionServers } from './policy/world';
import type { AutoProbePort, AutoProbeResult, MeasurementPort, SubscriptionsPort, TunnelPort } from './ports';
import { autoConfigFrom, AutoRuntime } from './runtime';

/** Ports backed by plain maps: servers answer after their delay, or never (`hang`), or not at all (`null`). */
class Ports implements AutoProbePort, MeasurementPort, TunnelPort, SubscriptionsPort {
  delays = new Map<string, number | null | 'hang'>();
  stored = new Map<string, Measurement[]>();
  subs: SubscriptionServers[] = [
    { id: 'A', serverIds: ['fi', 'de', 'nl'] },
    { id: 'B', serverIds: ['b1'] },
  ];
  cur: string | null = 'fi';
  isConnected = true;
  switches: string[] = [];
  probesStarted: { id: string; at: number }[] = [];
  failSwitch = false;

  constructor(private readonly clock: FakeClock) {}

  probe(serverId: string, timeoutMs: number): Promise<AutoProbeResult> {
    this.probesStarted.push({ id: serverId, at: this.clock.now() });
    const d = this.delays.get(serverId) ?? null;
    if (d === 'hang') return new Promise(() => {});
    return new Promise((resolve) => {
      if (d === null || d >= timeoutMs) this.clock.after(timeoutMs, () => resolve({ delayMs: null, error: 'timeout' }));
      else this.clock.after(d, () => resolve({ delayMs: d }));
    });
  }
  eventTests: string[] = [];
  eventTest(serverId: string): void {
    this.eventTests.push(serverId);
  }
  measurements(id: string) {
    return this.stored.get(id) ?? [];
  }
  fromCache() {
    return false;
  }
  throughputBps() {
    return null;
  }
  record(id: string, m: Measurement) {
    this.stored.set(id, [...this.measurements(id), m]);
  }
  async switchTo(id: string) {
    this.switches.push(id);
    if (this.failSwitch) throw new Error('dial failed');
    this.cur = id;
  }
  current() {
    return this.cur;
  }
  connected() {
    return this.isConnected;
  }
  list() {
    return this.subs;
  }
}

function setup(persisted: Partial<PersistedAutoState> = {}, options: { timelineLimit?: number } = {}) {
  const clock = new FakeClock();
  const ports = new Ports(clock);
  ports.delays = new Map<string, number | null | 'hang'>([
    ['fi', 60],
    ['de', 25],
    ['nl', 71],
    ['b1', 50],
  ]);
  const { logger, records } = memoryLogger('info');
  const saved: PersistedAutoState[] = [];
  const runtime = new AutoRuntime({
    clock,
    logger,
    config: autoConfigFrom(DEFAULT_SETTINGS),
    probe: ports,
    measurements: ports,
    tunnel: ports,
    subscriptions: ports,
    store: { save: (s) => void saved.push(s) },
    persisted: { subscriptionId: 'A', excluded: {}, returnCandidate: null, ...persisted },
    ...options,
  });
  runtime.start();
  const start = clock.now();
  /** Reports traffic every 500 ms for `ms`; data comes back while `flowing()` says so. */
  const traffic = async (ms: number, flowing: () => boolean) => {
    for (let t = 0; t < ms; t += 500) {
      await clock.advance(500);
      runtime.traffic({ at: clock.now(), intervalMs: 500, upBytes: 1000, downBytes: flowing() ? 5000 : 0 });
    }
  };
  return { clock, ports, runtime, records, saved, start, traffic };
}

describe('AutoRuntime', () => {
  it('uses the app defaults: 5 s stall, the monitor URL-test timeout for probes', () => {
    expect(autoConfigFrom(DEFAULT_SETTINGS)).toEqual({ stallThresholdMs: 5000, probeTimeoutMs: 5000 });
  });

  it('takes a new stall threshold from the settings without a restart', async () => {
    const w = setup();
    w.ports.delays.set('fi', null);
    w.runtime.reconfigure({ stallThresholdMs: 8000, probeTimeoutMs: 5000 });
    // Prepared at half the new threshold (4 s, not 2.5 s), the check itself at 8 s.
    await w.traffic(3500, () => false);
    expect(w.ports.probesStarted).toEqual([]);
    await w.traffic(4000, () => false);
    expect(w.ports.probesStarted.map((p) => p.at - w.start)).toEqual([4000, 4000, 4000]);
    expect(w.records.map((r) => r.message)).not.toContain('check (stall): probing fi, de, nl');
    await w.traffic(1000, () => false);
    expect(w.records.filter((r) => r.message === 'check (stall): probing fi, de, nl').map((r) => r.at - w.start)).toEqual([8000]);
  });

  it('says the network is silent within a second and a half of a stall when no server of any subscription answers, and not once bytes come back', async () => {
    const w = setup();
    for (const [id, delayMs] of [['de', 25], ['nl', 71], ['b1', 50]] as const) w.ports.record(id, { at: w.clock.now(), method: 'url', delayMs });
    for (const id of ['fi', 'de', 'nl', 'b1']) w.ports.delays.set(id, null);
    const seen: (number | null | undefined)[] = [];
    w.runtime.onChange((snapshot) => seen.push(snapshot.networkSilentSince));
    await w.traffic(1000, () => false);
    // The fastest of each subscription, the current server left out, each given at least 500 ms.
    expect(w.ports.probesStarted.map((p) => [p.id, p.at - w.start])).toEqual([['de', 1000], ['nl', 1000], ['b1', 1000]]);
    await w.traffic(500, () => false);
    expect(w.runtime.snapshot().networkSilentSince).toBe(w.start);
    expect(w.runtime.snapshot().networkLostUntil).toBeNull();
    expect(seen).toEqual([w.start]);
    // Nothing is recorded against the witnesses.
    expect(w.ports.measurements('de')).toHaveLength(1);
    await w.traffic(500, () => true);
    expect(w.runtime.snapshot().networkSilentSince).toBeNull();
    expect(seen).toEqual([w.start, null]);
  });

  it('tells the queue of the current server’s subscription: the monitor’s transfer tests follow its head', () => {
    const w = setup();
    // Nothing measured: subscription order.
    expect(w.runtime.candidateQueue()).toEqual(['fi', 'de', 'nl']);
    w.ports.record('nl', { at: w.clock.now(), method: 'url', delayMs: 30 });
    w.ports.record('de', { at: w.clock.now(), method: 'url', delayMs: 90 });
    expect(w.runtime.candidateQueue().slice(0, 2)).toEqual(['nl', 'de']);
    // Marked servers are no candidates.
    w.runtime.setExcluded('A', ['nl']);
    expect(w.runtime.candidateQueue()).not.toContain('nl');
  });

  it('runs a check end to end: parallel probes, results recorded, the switch carried out, every decision an AUTO line', async () => {
    const w = setup();
    w.ports.delays.set('fi', null);
    await w.traffic(6000, () => false);
    // Half the stall at 2.5 s: all three probes started at once (no history yet: subscription order).
    expect(w.ports.probesStarted).toEqual([
      { id: 'fi', at: w.start + 2500 },
      { id: 'de', at: w.start + 2500 },
      { id: 'nl', at: w.start + 2500 },
    ]);
    await w.clock.advance(5000);
    // Finland has no usual delay: the check waits its whole probe, which went out at 2.5 s.
    expect(w.ports.switches).toEqual(['de']);
    expect(w.ports.stored.get('fi')).toEqual([{ at: w.start + 7500, method: 'url', delayMs: null, error: 'timeout' }]);
    expect(w.ports.stored.get('nl')).toEqual([{ at: w.start + 2571, method: 'url', delayMs: 71 }]);
    expect(w.records.map((r) => [r.level, r.tag, r.message, r.at - w.start])).toEqual([
      ['info', 'AUTO', 'stalled for half the threshold: probing fi, de, nl ahead of a check', 2500],
      ['info', 'AUTO', 'check (stall): probing fi, de, nl', 5000],
      ['info', 'AUTO', 'probe de: 25 ms', 2525],
      ['info', 'AUTO', 'probe nl: 71 ms', 2571],
      ['info', 'AUTO', 'probe fi: no answer', 7500],
      ['info', 'AUTO', 'switch fi → de: current-silent', 7500],
    ]);
  });

  it('keeps the timeline with the server carrying the traffic at each decision', async () => {
    const w = setup();
    w.ports.delays.set('fi', null);
    await w.traffic(6000, () => false);
    await w.clock.advance(5000);
    const timeline = w.runtime.snapshot().timeline;
    expect(timeline.map((e) => [e.type, e.carrying])).toEqual([
      ['prepare', 'fi'],
      ['check', 'fi'],
      ['probe-result', 'fi'],
      ['probe-result', 'fi'],
      ['probe-result', 'fi'],
      ['switch', 'de'],
    ]);
    expect(w.runtime.snapshot()).toMatchObject({ subscriptionId: 'A', returnCandidate: 'fi', networkLostUntil: null });
  });

  it('caps the timeline, dropping the oldest entries', async () => {
    const w = setup({}, { timelineLimit: 3 });
    w.runtime.checkNow();
    await w.clock.advance(100);
    const timeline = w.runtime.snapshot().timeline;
    expect(timeline.map((e) => e.type)).toEqual(['probe-result', 'probe-result', 'stay']);
  });

  it('a probe that never settles counts as unanswered a little after its timeout', async () => {
    const w = setup();
    w.ports.delays.set('fi', 'hang');
    w.runtime.checkNow();
    await w.clock.advance(5999);
    expect(w.runtime.snapshot().timeline.filter((e) => e.type === 'switch')).toEqual([]);
    await w.clock.advance(1);
    expect(w.runtime.snapshot().timeline.at(-1)).toMatchObject({ type: 'switch', from: 'fi', to: 'de', at: w.start + 6000 });
  });

  it('a switch the tunnel cannot make is reported as a dial failure of that server (held by the 5 s after a switch)', async () => {
    const w = setup();
    w.ports.failSwitch = true;
    w.ports.delays.set('fi', null);
    w.runtime.checkNow();
    await w.clock.advance(5000);
    await w.clock.advance(5000);
    // The switch to nl failed; 5 s later (after the switch cooldown) the dial failure could not
    // start a check, it was held: one pause line explains it.
    const types = w.runtime.snapshot().timeline.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['switch', 'pause']);
    expect(w.runtime.snapshot().timeline.at(-1)).toMatchObject({ reason: 'after-switch' });
  });

  it('user actions: refusals come back as errors, the state is saved when it changes', () => {
    const w = setup();
    expect(w.runtime.setExcluded('A', ['fi', 'de', 'nl'])).toEqual({ ok: false, error: expect.stringContaining('last unmarked'), code: 'last-unmarked-server' });
    expect(w.runtime.setAuto('Z')).toEqual({ ok: false, error: 'There is no subscription "Z".', code: 'no-such-subscription' });
    expect(w.saved).toEqual([]);
    expect(w.runtime.setExcluded('A', ['de'])).toEqual({ ok: true });
    expect(w.saved.at(-1)).toEqual({ subscriptionId: 'A', excluded: { A: ['de'] }, returnCandidate: null });
    w.runtime.setAuto('B');
    expect(w.ports.switches).toEqual(['b1']);
    expect(w.saved.at(-1)).toEqual({ subscriptionId: 'B', excluded: { A: ['de'] }, returnCandidate: null });
    w.runtime.manualConnect('de');
    expect(w.saved.at(-1)).toMatchObject({ subscriptionId: null });
    expect(w.ports.switches).toEqual(['b1', 'de']);
  });

  it('announces every change to listeners with a fresh snapshot', async () => {
    const w = setup();
    const seen: (string | null)[] = [];
    const off = w.runtime.onChange((s) => seen.push(s.subscriptionId));
    w.runtime.setAuto('B');
    w.runtime.setAuto(null);
    off();
    w.runtime.setAuto('A');
    expect(seen).toEqual(['B', null]);
  });

  it('reports a network-loss pause in the snapshot while it lasts', async () => {
    const w = setup();
    for (const id of ['fi', 'de', 'nl', 'b1']) w.ports.delays.set(id, null);
    w.runtime.checkNow();
    await w.clock.advance(10_000);
    expect(w.runtime.snapshot().networkLostUntil).toBe(w.start + 25_000);
    expect(w.ports.stored.size).toBe(0);
    await w.clock.advance(15_000);
    expect(w.runtime.snapshot().networkLostUntil).toBeNull();
  });

  it('stops: no timers left, nothing more happens', async () => {
    const w = setup();
    w.runtime.stop();
    w.runtime.checkNow();
    await w.clock.advance(10 * 60_000);
    expect(w.ports.probesStarted).toEqual([]);
    expect(w.clock.pendingCount()).toBe(0);
  });
});
