import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../shared/domain/measurement';
import { memoryLogger } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import { GroupPicker, type PersistedGroupPick } from './groups';
import type { AutoProbeResult } from './ports';

/**
 * A group of US servers (us1–us3) inside subscription A, beside the main connection's servers
 * (fi, de) and subscription B's (b1). Servers answer after their delay, or never (null).
 */
function setup(o: { persisted?: PersistedGroupPick; delays?: Record<string, number | null>; history?: Record<string, number[]>; members?: string[] } = {}) {
  let members = o.members ?? ['us1', 'us2', 'us3'];
  const clock = new FakeClock();
  const { logger } = memoryLogger('info');
  const delays = new Map<string, number | null>(Object.entries({ us1: 80, us2: 40, us3: 120, fi: 30, de: 35, b1: 50, ...o.delays }));
  const stored = new Map<string, Measurement[]>();
  for (const [id, values] of Object.entries(o.history ?? { us1: [80, 81], us2: [40, 42], us3: [120, 121], fi: [10, 11] })) {
    stored.set(id, values.map((delayMs, i) => ({ at: clock.now() - (values.length - i) * 60_000, method: 'url' as const, delayMs })));
  }
  const applied: (string | null)[] = [];
  const saved: PersistedGroupPick[] = [];
  const probed: string[] = [];
  let connected = true;
  const picker = new GroupPicker({
    name: 'AI',
    clock,
    logger,
    config: { stallThresholdMs: 5000, probeTimeoutMs: 5000 },
    probe: {
      probe: (id, timeoutMs) => {
        probed.push(id);
        const d = delays.get(id) ?? null;
        return new Promise<AutoProbeResult>((resolve) => {
          if (d === null) clock.after(timeoutMs, () => resolve({ delayMs: null, error: 'timeout' }));
          else clock.after(d, () => resolve({ delayMs: d }));
        });
      },
      eventTest: () => undefined,
    },
    measurements: {
      measurements: (id) => stored.get(id) ?? [],
      fromCache: () => false,
      throughputBps: () => null,
      record: (id, m) => stored.set(id, [...(stored.get(id) ?? []), m]),
    },
    members: () => members,
    subscriptions: () => [
      { id: 'A', serverIds: ['fi', 'us1', 'de', 'us2', 'us3'] },
      { id: 'B', serverIds: ['b1'] },
    ],
    apply: async (pick) => void applied.push(pick),
    connected: () => connected,
    ...(o.persisted ? { persisted: o.persisted } : {}),
    save: (state) => saved.push(state),
  });
  /** The group's own counters: sending and nothing back, for `ms`. */
  const stall = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 250) {
      await clock.advance(250);
      picker.traffic({ at: clock.now(), intervalMs: 250, upBytes: 0, downBytes: 0 }, { upBytes: 300, downBytes: 0 });
    }
  };
  return { clock, picker, delays, stored, applied, saved, probed, stall, setMembers: (ids: string[]) => (members = ids), disconnect: () => (connected = false) };
}

describe("a group's pick follows Auto's rules among its members", () => {
  it('picks the best-scored member, never a better server outside the group', async () => {
    const { picker, applied, saved } = setup();
    picker.connectedNow();
    await Promise.resolve();
    expect(applied).toEqual(['us2']);
    expect(picker.snapshot()).toMatchObject({ name: 'AI', pick: 'us2', state: 'on', reason: 'auto-on', members: 3 });
    expect(saved.at(-1)).toEqual({ pick: 'us2', excluded: [], returnCandidate: null });
  });

  it("switches when the group's own traffic stalls, to the answering member with the best switch score", async () => {
    const { picker, delays, applied, stall } = setup();
    picker.connectedNow();
    await Promise.resolve();
    delays.set('us2', null);
    await stall(6000);
    await stall(6000);
    expect(applied).toEqual(['us2', 'us1']);
    expect(picker.snapshot()).toMatchObject({ pick: 'us1', state: 'on', reason: 'current-silent', returnCandidate: 'us2' });
    expect(picker.timeline().some((e) => e.type === 'check' && e.trigger === 'stall')).toBe(true);
  });

  it("the main connection stalling is not the group's stall: the group reads only its own counters", async () => {
    const { picker, clock, probed } = setup();
    picker.connectedNow();
    await Promise.resolve();
    for (let t = 0; t < 40_000; t += 250) {
      await clock.advance(250);
      picker.traffic({ at: clock.now(), intervalMs: 250, upBytes: 300, downBytes: 0 }, { upBytes: 0, downBytes: 0 });
    }
    expect(probed).toEqual([]);
    expect(picker.timeline().filter((e) => e.type === 'check')).toEqual([]);
  });

  it("a dial failure through the group's pick starts a check; one through another server does not", async () => {
    const { picker, delays, applied, clock, probed } = setup();
    picker.connectedNow();
    await Promise.resolve();
    delays.set('us2', null);
    picker.dialFailure('fi', 'refused');
    await clock.advance(100);
    expect(probed).toEqual([]);
    picker.dialFailure('us2', 'refused');
    await clock.advance(6000);
    expect(applied).toEqual(['us2', 'us1']);
  });

  it('the whole group silent and the neighbours silent too: the network is lost, the pick stays, nothing is recorded', async () => {
    const { picker, delays, applied, stall, stored } = setup();
    picker.connectedNow();
    await Promise.resolve();
    for (const id of ['us1', 'us2', 'us3', 'fi', 'de', 'b1']) delays.set(id, null);
    const before = JSON.stringify([...stored]);
    await stall(16_000);
    expect(applied).toEqual(['us2']);
    expect(picker.timeline().some((e) => e.type === 'network-lost')).toBe(true);
    expect(JSON.stringify([...stored])).toBe(before);
  });

  it('the whole group silent while the neighbours answer: the group is down (its traffic blocked), and comes back to the first member that answers twice', async () => {
    const { picker, delays, applied, stall, clock } = setup();
    picker.connectedNow();
    await Promise.resolve();
    for (const id of ['us1', 'us2', 'us3']) delays.set(id, null);
    // The first check finds the group silent and the neighbours answering (the next check widens); the second gives up.
    await stall(25_000);
    await stall(25_000);
    expect(applied.at(-1)).toBeNull();
    expect(picker.snapshot()).toMatchObject({ pick: null, state: 'down' });
    // Once a minute, while the device is in use, the members are asked again; us3 answers twice in a row and the group returns.
    delays.set('us3', 120);
    for (let t = 0; t < 3 * 60_000; t += 1000) {
      await clock.advance(1000);
      picker.traffic({ at: clock.now(), intervalMs: 1000, upBytes: 500, downBytes: 4000 }, { upBytes: 0, downBytes: 0 });
    }
    expect(applied.at(-1)).toBe('us3');
    expect(picker.snapshot()).toMatchObject({ pick: 'us3', state: 'on', reason: 'return' });
  }, 20_000);

  it('a pick saved by the last run is kept as it is (no switch for a better score), with its marks', async () => {
    const { picker, applied } = setup({ persisted: { pick: 'us3', excluded: ['us2'], returnCandidate: null } });
    picker.connectedNow();
    await Promise.resolve();
    expect(applied).toEqual([]);
    expect(picker.snapshot()).toMatchObject({ pick: 'us3', reason: 'restored', excluded: ['us2'] });
  });

  it('a saved pick that is no member any more (the group was edited) is not restored: the best member is picked', async () => {
    const { picker, applied } = setup({ persisted: { pick: 'fi', excluded: [], returnCandidate: null } });
    picker.connectedNow();
    await Promise.resolve();
    expect(applied).toEqual(['us2']);
    expect(picker.snapshot()).toMatchObject({ pick: 'us2', state: 'on', reason: 'auto-on' });
  });

  it('a marked member is never picked, and the last unmarked one cannot be marked', async () => {
    const { picker, applied } = setup();
    expect(picker.setExcluded(['us2'])).toEqual({ ok: true });
    picker.connectedNow();
    await Promise.resolve();
    expect(applied).toEqual(['us1']);
    expect(picker.setExcluded(['us1', 'us2', 'us3'])).toMatchObject({ ok: false, code: 'last-unmarked-server' });
  });

  it('a group with no member yet picks none, and picks once members appear', async () => {
    const { picker, applied, setMembers } = setup({ members: [] });
    picker.connectedNow();
    await Promise.resolve();
    expect(applied).toEqual([]);
    expect(picker.snapshot()).toMatchObject({ pick: null, state: 'none', members: 0 });
    setMembers(['us1', 'us2', 'us3']);
    picker.membersChanged();
    await Promise.resolve();
    expect(applied).toEqual(['us2']);
  });
});
