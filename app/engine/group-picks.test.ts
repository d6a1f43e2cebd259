import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../shared/domain/connection';
import type { Measurement } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import { DEFAULT_SETTINGS, type ServerGroup, type Settings } from '../../shared/settings';
import type { GroupRoute } from '../core';
import { Emitter } from '../events';
import { memoryLogger } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import type { TunnelEvents } from '../tunnel/controller';
import { GroupPicks } from './group-picks';
import { vlessServer } from './testing/servers';

const UP: ConnectionState = { state: 'connected', serverId: 'fi', httpProxy: 'http://127.0.0.1:1', socksProxy: 'socks5://127.0.0.1:2', since: 1, error: null, core: null };

/** The tunnel's group side: the groups it carries and each switch, as the controller takes them. */
class GroupTunnel {
  readonly emitter = new Emitter<TunnelEvents>();
  carried: GroupRoute[] = [];
  switches: { name: string; to: ServerId | null }[] = [];
  current: ConnectionState = UP;
  on<K extends keyof TunnelEvents>(event: K, listener: (payload: TunnelEvents[K]) => void) {
    return this.emitter.on(event, listener);
  }
  state() {
    return this.current;
  }
  async setGroups(groups: readonly GroupRoute[]) {
    this.carried = [...groups];
    return true;
  }
  async switchGroup(name: string, pick: GroupRoute['pick']) {
    if (!this.carried.some((g) => g.name === name)) throw new Error(`there is no group "${name}" in the tunnel`);
    this.switches.push({ name, to: pick?.server.id ?? null });
    this.carried = this.carried.map((g) => (g.name === name ? { name, pick } : g));
    return 'live' as const;
  }
}

function setup(groups: ServerGroup[] = [{ name: 'US', members: { by: 'country', countries: ['US'] } }], notInTunnel: ServerId[] = [], markedInAuto: Record<string, ServerId[]> = {}) {
  const clock = new FakeClock();
  const servers: Server[] = ['fi', 'us1', 'us2', 'de'].map((id) => vlessServer(id, 'A'));
  const countries = new Map<ServerId, string>([
    ['fi', 'FI'],
    ['us1', 'US'],
    ['us2', 'US'],
    ['de', 'DE'],
  ]);
  const delays = new Map<ServerId, number | null>([
    ['fi', 30],
    ['us1', 80],
    ['us2', 40],
    ['de', 35],
  ]);
  const stored = new Map<ServerId, Measurement[]>([...delays].map(([id, d]) => [id, [{ at: clock.now() - 60_000, method: 'url', delayMs: d }, { at: clock.now() - 30_000, method: 'url', delayMs: d }]]));
  const probed: ServerId[] = [];
  let settings: Settings = { ...DEFAULT_SETTINGS, groups };
  const saved: unknown[] = [];
  const tunnel = new GroupTunnel();
  // The main Auto's marks: the reducer replaces its record on every change, as here.
  let autoMarks: Record<string, ServerId[]> = markedInAuto;
  const picks = new GroupPicks({
    clock,
    logger: memoryLogger('info').logger,
    settings: () => settings,
    config: () => ({ stallThresholdMs: 5000, probeTimeoutMs: 5000 }),
    probe: {
      probe: (id, timeoutMs) => {
        probed.push(id);
        const d = delays.get(id) ?? null;
        return new Promise((resolve) => clock.after(d ?? timeoutMs, () => resolve(d === null ? { delayMs: null, error: 'timeout' } : { delayMs: d })));
      },
      eventTest: () => undefined,
    },
    measurements: { measurements: (id) => stored.get(id) ?? [], fromCache: () => false, throughputBps: () => null, record: (id, m) => stored.set(id, [...(stored.get(id) ?? []), m]) },
    status: (id) => ({ ipInfo: countries.has(id) ? { countryCode: countries.get(id) } : null }) as never,
    servers: { all: () => servers, withUpstream: (id) => ({ server: servers.find((s) => s.id === id)! }) },
    runsInTunnel: (id) => !notInTunnel.includes(id),
    subscriptions: () => [{ id: 'A', serverIds: servers.map((s) => s.id) }],
    tunnel: tunnel as never,
    excludedInAuto: () => autoMarks,
    persisted: { groups: {} },
    save: (state) => saved.push(state),
    changed: () => undefined,
  });
  picks.follow();
  const settle = () => clock.advance(0);
  const markInAuto = (marks: Record<string, ServerId[]>) => {
    autoMarks = marks;
    picks.autoMarksChanged();
  };
  return { clock, picks, tunnel, probed, delays, countries, saved, settle, markInAuto, setSettings: (next: Partial<Settings>) => (settings = { ...settings, ...next }) };
}

describe('the server groups of the settings, picked by Auto’s rules beside the main connection', () => {
  it('carries every group in the tunnel before switching it to its first pick: the best-scored member by exit country', async () => {
    const { picks, tunnel, settle } = setup();
    await settle();
    expect(tunnel.switches).toEqual([{ name: 'US', to: 'us2' }]);
    expect(picks.routes()).toEqual([{ name: 'US', pick: { server: expect.objectContaining({ id: 'us2' }) } }]);
    expect(picks.picks()).toEqual(['us2']);
    expect(picks.snapshots()[0]).toMatchObject({ name: 'US', pick: 'us2', members: 2, state: 'on' });
  });

  it('a server the tunnel cannot run (no core, nor a carrier) is no member: its outbound could not start', async () => {
    const { picks, tunnel, settle } = setup(undefined, ['us2']);
    await settle();
    expect(tunnel.switches).toEqual([{ name: 'US', to: 'us1' }]);
    expect(picks.snapshots()[0]).toMatchObject({ members: 1 });
  });

  it("a group's own stalled counters start its check; the main connection's stall does not", async () => {
    const { picks, tunnel, probed, clock, settle, delays } = setup();
    await settle();
    delays.set('us2', null);
    for (let t = 0; t < 8000; t += 250) {
      await clock.advance(250);
      tunnel.emitter.emit('traffic', { at: clock.now(), intervalMs: 250, upBytes: 400, downBytes: 0, groups: { US: { upBytes: 0, downBytes: 900 } } });
    }
    expect(probed).toEqual([]);
    for (let t = 0; t < 8000; t += 250) {
      await clock.advance(250);
      tunnel.emitter.emit('traffic', { at: clock.now(), intervalMs: 250, upBytes: 0, downBytes: 900, groups: { US: { upBytes: 300, downBytes: 0 } } });
    }
    expect(probed).toContain('us2');
    expect(tunnel.switches.at(-1)).toEqual({ name: 'US', to: 'us1' });
    expect(picks.snapshots()[0]).toMatchObject({ pick: 'us1', reason: 'current-silent' });
  });

  it("a failed dial of the group's pick starts its check", async () => {
    const { tunnel, probed, clock, settle } = setup();
    await settle();
    tunnel.emitter.emit('groupDialFailure', { at: clock.now(), group: 'US', serverId: 'us2', kind: 'refused', detail: 'connection refused' });
    await clock.advance(100);
    expect(probed).toEqual(expect.arrayContaining(['us2', 'us1']));
  });

  it('a member whose exit country is learnt later joins; a group with none picks nothing', async () => {
    const { picks, tunnel, countries, settle } = setup([{ name: 'JP', members: { by: 'country', countries: ['JP'] } }]);
    await settle();
    expect(tunnel.carried).toEqual([{ name: 'JP', pick: null }]);
    expect(picks.snapshots()[0]).toMatchObject({ state: 'none', members: 0 });
    countries.set('de', 'JP');
    picks.membersMaybeChanged();
    await settle();
    expect(tunnel.switches).toEqual([{ name: 'JP', to: 'de' }]);
  });

  it('a group removed from the settings leaves the tunnel and its saved pick', async () => {
    const { picks, tunnel, settle, setSettings, saved } = setup();
    await settle();
    setSettings({ groups: [] });
    picks.follow();
    await settle();
    expect(tunnel.carried).toEqual([]);
    expect(picks.snapshots()).toEqual([]);
    expect(saved.at(-2)).toEqual({ groups: { US: { pick: 'us2', excluded: [], returnCandidate: null } } });
    expect(saved.at(-1)).toEqual({ groups: {} });
  });
});

describe('a group honours the servers the user excluded', () => {
  it('a server excluded from Auto in its subscription is no group’s pick, though it scores best', async () => {
    const { picks, tunnel, settle } = setup(undefined, [], { A: ['us2'] });
    await settle();
    expect(tunnel.switches).toEqual([{ name: 'US', to: 'us1' }]);
    expect(picks.snapshots()[0]).toMatchObject({ pick: 'us1', memberIds: ['us1', 'us2'], excluded: [], excludedInAuto: ['us2'] });
  });

  it('the group’s pick excluded from Auto: the group moves to its best other member at once', async () => {
    const { picks, tunnel, settle, markInAuto } = setup();
    await settle();
    markInAuto({ A: ['us2'] });
    await settle();
    expect(tunnel.switches.at(-1)).toEqual({ name: 'US', to: 'us1' });
    expect(picks.snapshots()[0]).toMatchObject({ pick: 'us1', reason: 'excluded', excludedInAuto: ['us2'] });
  });

  it('every member excluded from Auto: the group chooses among them, as Auto does when only marked servers remain', async () => {
    const { picks, tunnel, settle } = setup(undefined, [], { A: ['us1', 'us2'] });
    await settle();
    expect(tunnel.switches).toEqual([{ name: 'US', to: 'us2' }]);
    expect(picks.snapshots()[0]).toMatchObject({ pick: 'us2', state: 'on' });
  });

  it('a member excluded from the group alone: the group leaves it, the mark is kept across restarts', async () => {
    const { picks, tunnel, settle, saved } = setup();
    await settle();
    expect(picks.setExcluded('US', ['us2'])).toEqual({ ok: true });
    await settle();
    expect(tunnel.switches.at(-1)).toEqual({ name: 'US', to: 'us1' });
    expect(picks.snapshots()[0]).toMatchObject({ pick: 'us1', reason: 'excluded', excluded: ['us2'], excludedInAuto: [] });
    expect(saved.at(-1)).toEqual({ groups: { US: { pick: 'us1', excluded: ['us2'], returnCandidate: null } } });
  });

  it('the last member neither list excludes cannot be excluded from the group; an unknown group is refused', async () => {
    const { picks, tunnel, settle } = setup(undefined, [], { A: ['us1'] });
    await settle();
    expect(picks.setExcluded('US', ['us2'])).toMatchObject({ ok: false, code: 'last-unmarked-server' });
    expect(picks.snapshots()[0]).toMatchObject({ pick: 'us2', excluded: [] });
    expect(picks.setExcluded('JP', ['us2'])).toMatchObject({ ok: false, code: 'no-such-group' });
    expect(tunnel.switches).toEqual([{ name: 'US', to: 'us2' }]);
  });
});

describe('a group whose pick went dead, fed only by requests that each send once (as the lab’s traffic is)', () => {
  /** Samples of 250 ms for `ms`, the group sending 209 bytes every `everyMs` and receiving nothing; the time the group left us2. */
  async function leftAfter(everyMs: number, ms: number) {
    const { picks, tunnel, clock, settle, delays } = setup();
    await settle();
    delays.set('us2', null);
    const start = clock.now();
    let nextSend = start;
    for (let t = 250; t <= ms; t += 250) {
      await clock.advance(250);
      const send = clock.now() >= nextSend;
      if (send) nextSend += everyMs;
      tunnel.emitter.emit('traffic', { at: clock.now(), intervalMs: 250, upBytes: 500, downBytes: 900, groups: { US: { upBytes: send ? 209 : 0, downBytes: 0 } } });
      if (picks.snapshots()[0]!.pick === 'us1') return clock.now() - start;
    }
    return null;
  }

  it('sends 2.25 s apart are "data is being sent": the group leaves at the stall threshold', async () => {
    expect(await leftAfter(2250, 40_000)).toBeLessThan(6000);
  });

  it('sends 3 s apart are a sparse sender: only the 30 s trigger moves the group', async () => {
    const left = await leftAfter(3000, 40_000);
    expect(left).toBeGreaterThanOrEqual(30_000);
    expect(left).toBeLessThan(32_000);
  });
});
