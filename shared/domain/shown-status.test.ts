import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from './auto';
import type { ConnectionStateName } from './connection';
import { countdownSeconds, measuredBeforeLoss, networkLostSince, shownConnection } from './shown-status';

const lost = (at: number, attempt: number): TimelineEntry => ({ type: 'network-lost', at, attempt, next_in_ms: 15_000, carrying: 'a1' });
const stay = (at: number): TimelineEntry => ({ type: 'stay', at, id: 'a1', reason: 'healthy', carrying: 'a1' });

describe('shownConnection', () => {
  const now = 100_000;
  it.each<[string, ConnectionStateName, number | null, ReturnType<typeof shownConnection>]>([
    ['connected, no loss: connected', 'connected', null, { kind: 'state', state: 'connected' }],
    ['connected while the loss is in force: network lost, with the time to the next try', 'connected', now + 15_000, { kind: 'network-lost', nextTryInMs: 15_000 }],
    ['reconnecting while lost: network lost', 'reconnecting', now + 4_000, { kind: 'network-lost', nextTryInMs: 4_000 }],
    ['connecting while lost: network lost', 'connecting', now + 1, { kind: 'network-lost', nextTryInMs: 1 }],
    ['the next try is due and the engine has not cleared it: lost, trying now', 'connected', now - 500, { kind: 'network-lost', nextTryInMs: 0 }],
    ['disconnected: a lost network changes nothing of a tunnel that is not up', 'disconnected', now + 15_000, { kind: 'state', state: 'disconnected' }],
    ['failed: its own error stays', 'failed', now + 15_000, { kind: 'state', state: 'failed' }],
  ])('%s', (_, state, until, expected) => {
    expect(shownConnection(state, { networkLostUntil: until }, now)).toEqual(expected);
  });

  it.each<[string, ConnectionStateName, number | null, number | null, ReturnType<typeof shownConnection>]>([
    ['nothing answers, Auto has not confirmed yet: network lost, checking (no next try)', 'connected', null, 99_000, { kind: 'network-lost', nextTryInMs: null }],
    ['nothing answers and Auto confirmed: its next try', 'connected', now + 15_000, 99_000, { kind: 'network-lost', nextTryInMs: 15_000 }],
    ['nothing answers but no tunnel is up: its own state', 'disconnected', null, 99_000, { kind: 'state', state: 'disconnected' }],
    ['something answers again: connected', 'connected', null, null, { kind: 'state', state: 'connected' }],
  ])('%s', (_, state, until, silentSince, expected) => {
    expect(shownConnection(state, { networkLostUntil: until, networkSilentSince: silentSince }, now)).toEqual(expected);
  });

  it('without Auto the network is not known to be lost', () => {
    expect(shownConnection('connected', null, now)).toEqual({ kind: 'state', state: 'connected' });
  });
});

describe('networkLostSince', () => {
  it.each<[string, number | null, TimelineEntry[], number | null]>([
    ['no loss in force: null, whatever the timeline holds', null, [lost(10, 1)], null],
    ['one verdict: its time', 99_000, [stay(5), lost(10, 1)], 10],
    ['the back-off tries of one loss: the first verdict of the run', 99_000, [lost(10, 1), lost(25, 2), lost(55, 3)], 10],
    ['a second loss later: the first verdict of the latest run', 99_000, [lost(10, 1), lost(25, 2), stay(40), lost(70, 1), lost(85, 2)], 70],
    ['the run began before the timeline kept it: its oldest kept verdict', 99_000, [lost(25, 2), lost(55, 3)], 25],
    ['in force but no verdict in the timeline: unknown (null)', 99_000, [stay(5)], null],
  ])('%s', (_, until, timeline, expected) => {
    expect(networkLostSince({ networkLostUntil: until, timeline })).toBe(expected);
  });

  it.each<[string, number | null, number | null, TimelineEntry[], number | null]>([
    ['silent before any verdict: since the silence began', null, 3, [stay(1)], 3],
    ['silent, then Auto confirmed: the earlier of the two', 99_000, 3, [lost(10, 1)], 3],
    ['confirmed, the silence seen after (a restart of the look): the verdict', 99_000, 20, [lost(10, 1)], 10],
    ['confirmed, no verdict kept: the silence', 99_000, 3, [stay(1)], 3],
  ])('%s', (_, until, silentSince, timeline, expected) => {
    expect(networkLostSince({ networkLostUntil: until, networkSilentSince: silentSince, timeline })).toBe(expected);
  });
});

describe('measuredBeforeLoss', () => {
  it.each<[string, number | null, number | null, boolean]>([
    ['measured before the loss: stale', 9, 10, true],
    ['measured after the loss was found: current', 11, 10, false],
    ['at the very moment: current', 10, 10, false],
    ['no loss: never stale', 9, null, false],
    ['never measured: nothing to grey', null, 10, false],
  ])('%s', (_, measuredAt, since, expected) => {
    expect(measuredBeforeLoss(measuredAt, since)).toBe(expected);
  });
});

describe('countdownSeconds', () => {
  it.each([
    [15_000, 15],
    [14_001, 15],
    [14_000, 14],
    [1, 1],
    [0, 0],
    [-20, 0],
  ])('%i ms → %i s', (ms, seconds) => {
    expect(countdownSeconds(ms)).toBe(seconds);
  });
});
