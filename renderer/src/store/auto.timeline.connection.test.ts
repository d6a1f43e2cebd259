import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../../shared/domain/auto';
import type { ConnectionState } from '../../../shared/domain/connection';
import { seedTimeline } from '../testing/sample-world';
import { buildTimeline, carrierOf } from './auto.timeline';

const MIN = 60_000;
const NOW = 100 * MIN;
const WINDOW = 30 * MIN;
const START = NOW - WINDOW;
const at = (m: number, s = 0) => START + m * MIN + s * 1000;
const band = (model: ReturnType<typeof buildTimeline>) => model.segments.map((s) => [s.serverId, s.start, s.end]);

function connection(patch: Partial<ConnectionState>): ConnectionState {
  return { state: 'connected', serverId: 'fi', httpProxy: null, socksProxy: null, since: at(10), error: null, core: null, ...patch };
}

describe('the band is drawn from the connection too', () => {
  it('shows the server of a connection Auto has made no decision about yet, from the moment it came up', () => {
    const model = buildTimeline([], NOW, WINDOW, carrierOf(connection({ since: at(10) })));
    expect(band(model)).toEqual([['fi', at(10), NOW]]);
    expect(model.markers).toEqual([]);
  });

  it('fills the whole window when the connection is older than it', () => {
    const model = buildTimeline([], NOW, WINDOW, carrierOf(connection({ since: START - 3 * 60 * MIN })));
    expect(band(model)).toEqual([['fi', START, NOW]]);
  });

  it('draws the decisions before the connection came up and the connection after, in one piece for the same server', () => {
    // Auto turned on at minute 2 and switched to nl; the tunnel was up through nl 2 s later.
    const entries: TimelineEntry[] = [{ type: 'switch', at: at(2), from: null, to: 'nl', reason: 'auto-on', carrying: 'nl' }];
    const model = buildTimeline(entries, NOW, WINDOW, carrierOf(connection({ serverId: 'nl', since: at(2, 2) })));
    expect(band(model)).toEqual([['nl', at(2), NOW]]);
  });

  it('keeps the seed’s figure as it was when the connection came up with the last switch', () => {
    const entries = seedTimeline(NOW);
    const withoutConnection = buildTimeline(entries, NOW, WINDOW);
    const withConnection = buildTimeline(entries, NOW, WINDOW, carrierOf(connection({ serverId: 'fi', since: at(19, 9) })));
    expect(band(withConnection)).toEqual(band(withoutConnection));
    expect(withConnection.markers).toEqual(withoutConnection.markers);
    expect(withConnection.losses).toEqual(withoutConnection.losses);
  });

  it('believes the connection over older decisions from the moment it came up (a server chosen by hand)', () => {
    const entries: TimelineEntry[] = [
      { type: 'switch', at: at(1), from: null, to: 'fi', reason: 'auto-on', carrying: 'fi' },
      { type: 'stay', at: at(5), id: 'fi', reason: 'current-answered', carrying: 'fi' },
    ];
    const model = buildTimeline(entries, NOW, WINDOW, carrierOf(connection({ serverId: 'de', since: at(12) })));
    expect(band(model)).toEqual([
      ['fi', at(1), at(12)],
      ['de', at(12), NOW],
    ]);
  });

  it.each(['connecting', 'reconnecting', 'disconnected', 'failed'] as const)('draws nothing from a connection that is %s', (state) => {
    expect(carrierOf(connection({ state }))).toBeNull();
    expect(buildTimeline([], NOW, WINDOW, carrierOf(connection({ state })))).toMatchObject({ segments: [] });
  });

  it('draws nothing from a connection that says it came up in the future (clocks apart)', () => {
    expect(band(buildTimeline([], NOW, WINDOW, carrierOf(connection({ since: NOW + MIN }))))).toEqual([]);
  });
});
