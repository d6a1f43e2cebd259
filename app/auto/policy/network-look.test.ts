import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../shared/domain/measurement';
import { LOOK_IDLE, LOOK_RULES, type LookCommand, type LookEvent, type LookState, lookStep, type LookWorld, usualDelayMs, witnesses } from './network-look';

const url = (at: number, delayMs: number | null): Measurement => ({ at, method: 'url', delayMs });

/** Three subscriptions; a on a1. Usual delays: fast ones in each, one too slow to testify in time, one never answered. */
const DELAYS: Record<string, Measurement[]> = {
  a1: [url(0, 40)],
  a2: [url(0, 90), url(1, 100), url(2, 110)],
  a3: [url(0, 120)],
  a4: [url(0, 50)],
  b1: [url(0, 200)],
  b2: [url(0, 400)], // 3 × 400 ms passes the 1 s the look can wait
  c1: [url(0, null)],
  c2: [url(0, 100)],
};

const world: LookWorld = {
  subscriptions: () => [
    { id: 'A', serverIds: ['a1', 'a2', 'a3', 'a4'] },
    { id: 'B', serverIds: ['b1', 'b2'] },
    { id: 'C', serverIds: ['c1', 'c2'] },
  ],
  measurements: (id) => DELAYS[id] ?? [],
  current: 'a1',
  stallThresholdMs: 5000,
};

/** Samples every 250 ms: 'S' sent only, 'R' received, 'B' both, '.' nothing. */
function samples(pattern: string, startAt = 0): LookEvent[] {
  return [...pattern].map((c, i) => ({
    type: 'traffic',
    sample: { at: startAt + (i + 1) * 250, intervalMs: 250, upBytes: c === 'S' || c === 'B' ? 100 : 0, downBytes: c === 'R' || c === 'B' ? 100 : 0 },
  }));
}

/** Runs events in order; each traffic sample is "now" at its end, others at the previous time. */
function run(events: LookEvent[], from: LookState = { ...LOOK_IDLE, connected: true }): { state: LookState; asked: LookCommand[] } {
  let state = from;
  let now = 0;
  const asked: LookCommand[] = [];
  for (const event of events) {
    if (event.type === 'traffic') now = event.sample.at;
    const out = lookStep(state, event, now, world);
    state = out.state;
    asked.push(...out.commands);
  }
  return { state, asked };
}

const silent = (lookId: number, serverId: string): LookEvent => ({ type: 'witness', lookId, serverId, answered: false });
const answers = (lookId: number, serverId: string): LookEvent => ({ type: 'witness', lookId, serverId, answered: true });
const ALL_WITNESSES = ['a4', 'a2', 'b1', 'c2'];

describe('the quick look at the network', () => {
  it('asks the two fastest of every subscription that can answer within 1 s, the current server left out', () => {
    expect(witnesses(world, 10)).toEqual([
      { serverId: 'a4', waitMs: 500 }, // 3 × 50 ms, raised to the 500 ms floor
      { serverId: 'a2', waitMs: 500 }, // median 100 ms: 300 ms, raised
      { serverId: 'b1', waitMs: 600 }, // b2 (400 ms) cannot testify in time
      { serverId: 'c2', waitMs: 500 }, // c1 never answered: no usual delay
    ]);
  });

  it.each([
    // pattern (250 ms each), then witness answers → silent since / asked
    { what: 'a stall of 750 ms asks the witnesses', pattern: 'BBSSS', answers: [], asked: 1, silentSince: null },
    { what: 'a stall of 500 ms does not', pattern: 'BBSS', answers: [], asked: 0, silentSince: null },
    { what: 'traffic that comes back asks nothing', pattern: 'BBBBBBBB', answers: [], asked: 0, silentSince: null },
    { what: 'idle asks nothing', pattern: '........', answers: [], asked: 0, silentSince: null },
    { what: 'every witness silent: silent since the stall began', pattern: 'BBSSS', answers: ALL_WITNESSES.map((id) => silent(1, id)), asked: 1, silentSince: 500 },
    { what: 'all but one silent: not yet', pattern: 'BBSSS', answers: ALL_WITNESSES.slice(1).map((id) => silent(1, id)), asked: 1, silentSince: null },
    { what: 'one answer: the network is there', pattern: 'BBSSS', answers: [silent(1, 'a4'), answers(1, 'c2'), silent(1, 'a2'), silent(1, 'b1')], asked: 1, silentSince: null },
    { what: 'the stall keeps going: asked once', pattern: 'BBSSSSSSSS', answers: [], asked: 1, silentSince: null },
  ])('$what', ({ pattern, answers: said, asked, silentSince }) => {
    const first = run(samples(pattern));
    const after = run(said, first.state);
    expect(first.asked).toHaveLength(asked);
    expect(after.state.silentSince).toBe(silentSince);
  });

  it('ends the silence when bytes come back or any probe answers', () => {
    const lost = run([...samples('BBSSS'), ...ALL_WITNESSES.map((id) => silent(1, id))]).state;
    expect(lost.silentSince).toBe(500);
    expect(run(samples('R', 2000), lost).state.silentSince).toBe(null);
    expect(run([{ type: 'answered' }], lost).state.silentSince).toBe(null);
    // Still sending into the void: still silent.
    expect(run(samples('SSSS', 2000), lost).state.silentSince).toBe(500);
  });

  it('looks at a stall once, even when it goes on after an answer; a new stall is looked at, 2 s after the last look at the soonest', () => {
    const answered = run([...samples('BBSSS'), answers(1, 'a4')]).state;
    expect(answered.silentSince).toBe(null);
    expect(run(samples('SSSSSSSS', 1250), answered).asked).toHaveLength(0);
    expect(answered.quietUntil).toBe(1250 + LOOK_RULES.minSpacingMs);
    // Bytes came back, then a new stall: looked at once 2 s have passed since the last look.
    expect(run(samples('BSSS', 1250), answered).asked).toHaveLength(0);
    expect(run(samples('BSSSS', 2000), answered).asked).toHaveLength(1);
  });

  it('a late answer of an earlier look changes nothing', () => {
    const first = run([...samples('BBSSS'), ...ALL_WITNESSES.map((id) => silent(1, id))]).state;
    expect(run([answers(7, 'a4')], first).state.silentSince).toBe(500);
  });

  it('the OS saying "no network" is silence at once; "a network" ends it; disconnected, nothing is looked at', () => {
    const none = run([{ type: 'os-network', state: 'none' }]).state;
    expect(none.silentSince).toBe(0);
    expect(none.silentBy).toBe('os');
    expect(run([{ type: 'os-network', state: 'up' }], none).state.silentSince).toBe(null);
    const off = run([{ type: 'tunnel', connected: false }, ...samples('BBSSSSSS')]);
    expect(off.asked).toHaveLength(0);
    expect(run([{ type: 'tunnel', connected: false }], none).state.silentSince).toBe(null);
  });

  it("takes a server's usual delay as the larger middle of its URL answers of the last 24 h", () => {
    expect(usualDelayMs([url(0, 100), url(1, 300), url(2, 200), url(3, null)], 10)).toBe(200);
    expect(usualDelayMs([url(0, 100), url(1, 300)], 10)).toBe(300);
    expect(usualDelayMs([{ at: 0, method: 'tcp', delayMs: 5 }], 10)).toBe(null);
    expect(usualDelayMs([url(0, 100)], 25 * 3600_000)).toBe(null);
  });
});
