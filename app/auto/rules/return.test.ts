/** spec/auto.md "Return": back to the server left after it answered twice in a row; own-subscription retries while away. */
import { describe, expect, it } from 'vitest';
import { baseScenario, brief, simulate } from '../testing/simulate';

const noResults = { results: false } as const;
const up = { network: 'online', traffic: 'active' } as const;

describe('return to the server left', () => {
  it('returns once the left server answered two scheduled checks in a row, not after one', async () => {
    const lines = await simulate(baseScenario({ until: '21m' }, [{ at: '2m', servers: { fi: 'down' } }, { at: '12m', servers: { fi: 60 } }]));
    expect(brief(lines, noResults)).toEqual([
      '125000 check stall fi,nl,de',
      '125000 switch fi>nl current-silent',
      '300000 check scheduled nl,fi,de',
      '305000 stay nl current-answered',
      '600000 check scheduled nl,fi,de',
      '605000 stay nl current-answered',
      '900000 check scheduled nl,fi,de',
      '900071 stay nl return-pending fi 1/2',
      '1200000 check scheduled nl,fi,de',
      '1200071 switch nl>fi return',
    ]);
  });

  it('a silence between two answers starts the count over', async () => {
    const lines = await simulate(
      baseScenario({ until: '21m' }, [
        { at: '2m', servers: { fi: 'down' } },
        { at: '4m', servers: { fi: 60 } },
        { at: '9m', servers: { fi: 'down' } },
        { at: '12m', servers: { fi: 60 } },
      ]),
    );
    const decisions = brief(lines, noResults).filter((l) => !l.includes(' check '));
    expect(decisions).toEqual([
      '125000 switch fi>nl current-silent',
      '300071 stay nl return-pending fi 1/2',
      '605000 stay nl current-answered',
      '900071 stay nl return-pending fi 1/2',
      '1200071 switch nl>fi return',
    ]);
  });
});

describe('while on a neighbour subscription server', () => {
  const scenario = (world: unknown[], until: string) => ({
    subscriptions: [
      { id: 'A', servers: ['a1', 'a2', 'a3'] },
      { id: 'B', servers: ['b1', 'b2'] },
    ],
    auto: 'A',
    current: 'a1',
    world: [{ at: '0s', ...up, servers: { a1: 40, a2: 45, a3: 50, b1: 50, b2: 70 } }, { at: '2m', servers: { a1: 'down', a2: 'down', a3: 'down' } }, ...world],
    until,
  });

  it('checks the own subscription once a minute; 5 failures in a row pause those checks for 15 min', async () => {
    const lines = await simulate(scenario([], '24m'));
    const own = brief(lines, noResults).filter((l) => / (check|pause) own-sub-retry | switch /.test(l));
    expect(own).toEqual([
      '148070 switch a1>b1 neighbour-subscription',
      '208070 check own-sub-retry b1,a1,a2,a3',
      '268070 check own-sub-retry b1,a1,a2,a3',
      '328070 check own-sub-retry b1,a1,a2,a3',
      '388070 check own-sub-retry b1,a1,a2,a3',
      '448070 check own-sub-retry b1,a1,a2,a3',
      '453070 pause own-sub-retry until 1353070',
      '1353070 check own-sub-retry b1,a1,a2,a3',
      '1413070 check own-sub-retry b1,a1,a2,a3',
    ]);
  });

  it('returns to its own subscription once the left server answered twice in a row', async () => {
    const lines = await simulate(scenario([{ at: '5m', servers: { a1: 40, a2: 45, a3: 50 } }], '7m'));
    expect(brief(lines, noResults).filter((l) => !l.startsWith('1'))).toEqual([
      '208070 check own-sub-retry b1,a1,a2,a3',
      '213070 stay b1 own-subscription-silent',
      '268070 check own-sub-retry b1,a1,a2,a3',
      '273070 stay b1 own-subscription-silent',
      // The scheduled check at 5 m starts before the servers return at that moment.
      '300000 check scheduled b1,a1,b2',
      '305000 stay b1 current-answered',
      '328070 check own-sub-retry b1,a1,a2,a3',
      '328120 stay b1 return-pending a1 1/2',
      '388070 check own-sub-retry b1,a1,a2,a3',
      '388120 switch b1>a1 return',
    ]);
  });
});
