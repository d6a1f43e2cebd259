/** spec/auto.md "Servers Auto does not take (exclusions)", all four rules. */
import { describe, expect, it } from 'vitest';
import { baseScenario, brief, simulate } from '../testing/simulate';

const noResults = { results: false } as const;

describe('marked servers', () => {
  it('are neither probed nor taken', async () => {
    const lines = await simulate(baseScenario({ until: '2m20s', excluded: ['nl'] }, [{ at: '2m', servers: { fi: 'down' } }]));
    expect(brief(lines, noResults)).toEqual(['125000 check stall fi,de', '125000 switch fi>de current-silent']);
  });

  it('the last unmarked server cannot be marked', async () => {
    const lines = await simulate(
      baseScenario({ until: '2m20s' }, [
        { at: '1m', action: { exclude: ['de', 'nl'] } },
        { at: '90s', action: { exclude: ['fi'] } },
        { at: '2m', servers: { fi: 'down' } },
      ]),
    );
    // The refusal changed nothing: Finland stays unmarked and is still Auto's server.
    expect(brief(lines, noResults)).toEqual([
      '90000 refused exclude',
      '125000 check stall fi',
      '127500 check neighbour-sub b1,b2',
      '127570 stay fi own-subscription-silent',
      '130000 pause after-check until 142570',
    ]);
    expect(lines.find((l) => l.type === 'refused')).toMatchObject({ reason: expect.stringMatching(/last unmarked server cannot be marked/) });
  });

  it('marking the connected server: after Done Auto moves to the best of the others', async () => {
    const lines = await simulate(baseScenario({ until: '2m' }, [{ at: '1m', action: { exclude: ['fi'] } }]));
    expect(brief(lines)).toEqual(['60000 switch fi>nl excluded', '60071 event-test nl 71']);
  });

  it('when an update leaves only marked servers, Auto chooses among them', async () => {
    const lines = await simulate(
      baseScenario({ until: '3m20s', excluded: ['de', 'nl'] }, [
        { at: '2m', action: { subscriptionUpdate: { A: ['de', 'nl'] } } },
        { at: '3m', servers: { nl: 'down' } },
      ]),
    );
    expect(brief(lines, noResults)).toEqual(['120000 switch fi>nl server-removed', '120071 event-test nl 71', '185000 check stall nl,de', '185000 switch nl>de current-silent']);
  });

  it('marks survive subscription updates (by server id)', async () => {
    const lines = await simulate(
      baseScenario({ until: '4m20s', excluded: ['nl'] }, [
        { at: '1m', action: { subscriptionUpdate: { A: ['fi', 'de'] } } },
        { at: '2m', action: { subscriptionUpdate: { A: ['fi', 'de', 'nl'] } } },
        { at: '2m', servers: { nl: 71 } },
        { at: '4m', servers: { fi: 'down' } },
      ]),
    );
    expect(brief(lines, noResults)).toEqual(['245000 check stall fi,de', '245000 switch fi>de current-silent']);
  });

  it('unmarking makes a server available again', async () => {
    const lines = await simulate(baseScenario({ until: '2m20s', excluded: ['nl'] }, [{ at: '1m', action: { include: ['nl'] } }, { at: '2m', servers: { fi: 'down' } }]));
    expect(brief(lines, noResults)).toEqual(['125000 check stall fi,nl,de', '125000 switch fi>nl current-silent']);
  });
});
