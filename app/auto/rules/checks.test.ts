/** spec/auto.md "How a check runs": what is probed, stay while the current answers, switch by S'. */
import { describe, expect, it } from 'vitest';
import { baseScenario, brief, simulate } from '../testing/simulate';

const noResults = { results: false } as const;

/** Twelve servers s01…s12; s12 scores best (40), each lower number 5 ms worse (s01: 95). */
function twelve(world: unknown[], until = '6m') {
  const ids = Array.from({ length: 12 }, (_, i) => `s${String(i + 1).padStart(2, '0')}`);
  const history = Object.fromEntries(ids.map((id, i) => [id, [100 - 5 * (i + 1), 100 - 5 * (i + 1)]]));
  const servers = Object.fromEntries(ids.map((id, i) => [id, 100 - 5 * (i + 1)]));
  return {
    subscriptions: [{ id: 'A', servers: ids }],
    auto: 'A',
    current: 's05',
    history,
    world: [{ at: '0s', network: 'online', traffic: 'active', servers }, ...world],
    until,
  };
}

describe('what a check probes', () => {
  it('an ordinary check: the current server and up to 9 best-scored others, in queue order', async () => {
    const lines = await simulate(twelve([{ at: '1m', servers: { s05: 'down' } }], '1m15s'));
    expect(brief(lines, noResults)).toEqual(['65000 check stall s05,s12,s11,s10,s09,s08,s07,s06,s04,s03', '65000 switch s05>s12 current-silent']);
  });

  it('a scheduled check: the current one, the return candidate and the two best', async () => {
    const lines = await simulate(twelve([{ at: '1m', servers: { s05: 'down' } }]));
    expect(brief(lines, noResults).slice(2)).toEqual(['300000 check scheduled s12,s05,s11,s10', '305000 stay s12 current-answered']);
  });

  it('a user check probes like an ordinary one and is held by no cooldown', async () => {
    const lines = await simulate(baseScenario({ until: '1m30s' }, [{ at: '1m', action: { checkNow: true } }, { at: '1m1s', action: { checkNow: true } }]));
    expect(brief(lines, noResults)).toEqual([
      '60000 check user fi,nl,de',
      '60071 stay fi current-answered',
      '61000 check user fi,nl,de',
      '61071 stay fi current-answered',
    ]);
  });
});

describe('the current server answered: stay, even if another answered faster', () => {
  it('stays on Finland (60 ms) although Germany answered in 25 ms', async () => {
    const lines = await simulate(baseScenario({ until: '6m' }));
    expect(brief(lines)).toEqual(['300000 check scheduled fi,nl,de', '300025 de 25', '300060 fi 60', '300071 nl 71', '300071 stay fi current-answered']);
  });
});

describe("the current server is silent: switch to the answering server with the best S'", () => {
  it.each([
    // S' = L + (max A − min A) + 1000·f over the last 24 h.
    { name: 'stable beats fast but jumpy (73 vs 305)', history: { de: [20, 25, 300], nl: [70, 72, 71] }, servers: { de: 25, nl: 71 }, to: 'nl' },
    { name: 'the worked example: Germany 305 beats Netherlands with a failure (1021)', history: { de: [20, 25, 300], nl: [15, 18, null] }, servers: { de: 25, nl: 18 }, to: 'de' },
    { name: 'both stable: the faster now', history: { de: [24, 25, 26], nl: [70, 72, 71] }, servers: { de: 25, nl: 71 }, to: 'de' },
    { name: 'only the answering ones count', history: { de: [24, 25, 26], nl: [70, 72, 71] }, servers: { de: 'down', nl: 71 }, to: 'nl' },
  ])('$name → $to', async ({ history, servers, to }) => {
    const input = baseScenario({ until: '2m20s', history: { fi: [60, 61, 62], ...history } }, [{ at: '0s', servers }, { at: '2m', servers: { fi: 'down' } }]);
    const lines = await simulate(input);
    expect(brief(lines, noResults)).toContain(`125000 switch fi>${to} current-silent`);
  });

  it('records every answer and silence of the check', async () => {
    const lines = await simulate(baseScenario({ until: '2m20s' }, [{ at: '2m', servers: { fi: 'down' } }]), undefined);
    expect(lines.at(-1)).toMatchObject({ history: { fi: [60, 61, 62, null], de: [20, 25, 300, 25], nl: [70, 72, 71, 71] } });
  });
});
