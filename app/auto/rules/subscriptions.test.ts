/** Auto on and off, one subscription at a time, a vanished current server, a manual choice. */
import { describe, expect, it } from 'vitest';
import { baseScenario, brief, simulate } from '../testing/simulate';

const noResults = { results: false } as const;

describe('the selected server vanished from the subscription after an update', () => {
  it('immediately puts the best remaining one in its place, and the monitor tests it at once (seed 000: an event test)', async () => {
    const lines = await simulate(baseScenario({ until: '3m' }, [{ at: '2m', action: { subscriptionUpdate: { A: ['de', 'nl', 'new1'] } } }]));
    expect(brief(lines)).toEqual(['120000 switch fi>nl server-removed', '120071 event-test nl 71']);
    expect(lines.at(-1)).toMatchObject({ current: 'nl', history: { nl: [70, 72, 71, 71] } });
  });

  it("new servers of an update are never tested: they queue after the scored ones, and S' judges them by their answer alone", async () => {
    const lines = await simulate(
      baseScenario({ until: '3m' }, [
        { at: '1m', action: { subscriptionUpdate: { A: ['fi', 'de', 'nl', 'new1'] } } },
        { at: '1m', servers: { new1: 10 } },
        { at: '2m', servers: { fi: 'down' } },
      ]),
    );
    // S'(new1) = 10 (no history), S'(nl) = 71 + 2 = 73.
    expect(brief(lines, noResults)).toEqual(['125000 check stall fi,nl,de,new1', '125000 switch fi>new1 current-silent']);
  });
});

describe('Auto is on for one subscription at a time', () => {
  it('turning it on picks the best score and reconnects; the old subscription is no longer Auto', async () => {
    const lines = await simulate(
      baseScenario({ until: '7m', history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [70, 72, 71], b1: [90, 90], b2: [50, 52] } }, [
        { at: '1m', action: { autoOn: 'B' } },
      ]),
    );
    expect(brief(lines, noResults)).toEqual(['60000 switch fi>b2 auto-on', '60070 event-test b2 70', '360000 check scheduled b2,b1', '360070 stay b2 current-answered']);
  });

  it('with no current server, Auto picks by score and the VPN connects there', async () => {
    const input = baseScenario({ until: '1m', history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [30, 31] } });
    delete input.current;
    const lines = await simulate(input);
    expect(brief(lines, { end: true })).toEqual(['end current=nl']);
  });

  it('turning it off: a dead server is left alone', async () => {
    const lines = await simulate(baseScenario({ until: '10m' }, [{ at: '1m', action: { autoOff: true } }, { at: '2m', servers: { fi: 'down' } }]));
    expect(brief(lines, { end: true })).toEqual(['end current=fi']);
  });

  it('a server chosen by hand turns Auto off', async () => {
    const lines = await simulate(baseScenario({ until: '10m' }, [{ at: '1m', action: { connect: 'de' } }, { at: '2m', servers: { de: 'down' } }]));
    expect(brief(lines, { end: true })).toEqual(['end current=de']);
  });
});
