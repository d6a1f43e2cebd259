import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../../shared/domain/auto';
import type { ConnectionState } from '../../../shared/domain/connection';
import { seedTimeline } from '../testing/sample-world';
import { buildTimeline, type CarrierSpan } from './auto.timeline';
import { type ConnectionSession, sessionsAfter } from './connection';

const MIN = 60_000;
const NOW = 100 * MIN;
const WINDOW = 30 * MIN;
const START = NOW - WINDOW;
const at = (m: number, s = 0) => START + m * MIN + s * 1000;
const band = (model: ReturnType<typeof buildTimeline>) => model.segments.map((s) => [s.serverId, s.start, s.end]);
const up = (serverId: string, since: number, until: number | null = null): CarrierSpan => ({ serverId, since, until });

function connection(patch: Partial<ConnectionState>): ConnectionState {
  return { state: 'connected', serverId: 'fi', httpProxy: null, socksProxy: null, since: at(10), error: null, core: null, ...patch };
}

describe('the band is drawn from the connection too', () => {
  it('shows the server of a connection Auto has made no decision about yet, from the moment it came up', () => {
    const model = buildTimeline([], NOW, WINDOW, [up('fi', at(10))]);
    expect(band(model)).toEqual([['fi', at(10), NOW]]);
    expect(model.markers).toEqual([]);
  });

  it('fills the whole window when the connection is older than it', () => {
    expect(band(buildTimeline([], NOW, WINDOW, [up('fi', START - 3 * 60 * MIN)]))).toEqual([['fi', START, NOW]]);
  });

  it('draws the decisions before the connection came up and the connection after, in one piece for the same server', () => {
    // Auto turned on at minute 2 and switched to nl; the tunnel was up through nl 2 s later.
    const entries: TimelineEntry[] = [{ type: 'switch', at: at(2), from: null, to: 'nl', reason: 'auto-on', carrying: 'nl' }];
    expect(band(buildTimeline(entries, NOW, WINDOW, [up('nl', at(2, 2))]))).toEqual([['nl', at(2), NOW]]);
  });

  it('keeps the seed’s figure as it was when the connection came up with the last switch', () => {
    const entries = seedTimeline(NOW);
    const without = buildTimeline(entries, NOW, WINDOW);
    const withConnection = buildTimeline(entries, NOW, WINDOW, [up('fi', at(19, 9))]);
    expect(band(withConnection)).toEqual(band(without));
    expect(withConnection.markers).toEqual(without.markers);
    expect(withConnection.losses).toEqual(without.losses);
  });

  it('shows who carried the traffic before Auto’s first check switched away (the earlier connection)', () => {
    // Up through fi since before the window; a stall at minute 20: check, switch to nl, reconnect.
    const entries: TimelineEntry[] = [
      { type: 'check', at: at(20), trigger: 'stall', probe: ['fi', 'nl'], carrying: 'fi' },
      { type: 'switch', at: at(20, 5), from: 'fi', to: 'nl', reason: 'current-silent', carrying: 'nl' },
    ];
    const sessions = [up('fi', START - MIN, at(20, 6)), up('nl', at(20, 8))];
    expect(band(buildTimeline(entries, NOW, WINDOW, sessions))).toEqual([
      ['fi', START, at(20, 6)],
      ['nl', at(20, 6), NOW],
    ]);
    // Without the sessions the band knew nothing before the check.
    expect(band(buildTimeline(entries, NOW, WINDOW))[0]?.[1]).toBe(at(20));
  });

  it('believes the connection over older decisions while it was up (a server chosen by hand)', () => {
    const entries: TimelineEntry[] = [
      { type: 'switch', at: at(1), from: null, to: 'fi', reason: 'auto-on', carrying: 'fi' },
      { type: 'stay', at: at(5), id: 'fi', reason: 'current-answered', carrying: 'fi' },
    ];
    expect(band(buildTimeline(entries, NOW, WINDOW, [up('de', at(12))]))).toEqual([
      ['fi', at(1), at(12)],
      ['de', at(12), NOW],
    ]);
  });

  it('draws nothing from a connection that says it came up in the future (clocks apart)', () => {
    expect(band(buildTimeline([], NOW, WINDOW, [up('fi', NOW + MIN)]))).toEqual([]);
  });
});

describe('connection sessions', () => {
  const steps = (...states: ConnectionState[]) => states.reduce<ConnectionSession[]>((sessions, state) => sessionsAfter(sessions, state), []);

  it('opens a session when a connection comes up and closes it when the next state begins', () => {
    expect(
      steps(
        connection({ serverId: 'fi', since: at(1) }),
        connection({ state: 'connecting', serverId: 'nl', since: at(20, 6) }),
        connection({ serverId: 'nl', since: at(20, 8) }),
      ),
    ).toEqual([
      { serverId: 'fi', since: at(1), until: at(20, 6) },
      { serverId: 'nl', since: at(20, 8), until: null },
    ]);
  });

  it('keeps one session for repeated states of the same connection', () => {
    const once = steps(connection({ since: at(1) }));
    expect(sessionsAfter(once, connection({ since: at(1) }))).toBe(once);
  });

  it.each(['connecting', 'reconnecting', 'disconnected', 'failed'] as const)('opens nothing for a connection that is %s', (state) => {
    expect(steps(connection({ state }))).toEqual([]);
  });

  it('closes a session at once when the tunnel goes up through another server without a step between', () => {
    expect(steps(connection({ serverId: 'fi', since: at(1) }), connection({ serverId: 'de', since: at(3) }))).toEqual([
      { serverId: 'fi', since: at(1), until: at(3) },
      { serverId: 'de', since: at(3), until: null },
    ]);
  });
});
