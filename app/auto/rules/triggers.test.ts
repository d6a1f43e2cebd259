/**
 * spec/auto.md "When a check starts", on the simulator's virtual clock. Traffic is reported every
 * 500 ms; a server that goes down at 2 m carried the interval ending at 2 m.
 */
import { describe, expect, it } from 'vitest';
import { settingsSchema } from '../../../shared/settings';
import { baseScenario, brief, simulate } from '../testing/simulate';

const noResults = { results: false } as const;

describe('trigger 1: sending without receiving for the stall threshold', () => {
  it.each([
    { name: 'desktop default 5 s', overrides: {}, settings: undefined, checkAt: 125_000 },
    { name: 'the stall threshold setting', overrides: {}, settings: settingsSchema.parse({ stallThresholdMs: 8000 }), checkAt: 128_000 },
    { name: 'mobile: 2 s', overrides: { platform: 'mobile' }, settings: undefined, checkAt: 122_000 },
  ])('$name: check at $checkAt ms, switching at once: prepared at half the threshold, the others answered and Finland missed 3 of its usual delays (0.8 s at least)', async ({ overrides, settings, checkAt }) => {
    const lines = await simulate(baseScenario({ ...overrides, until: '2m30s' }, [{ at: '2m', servers: { fi: 'down' } }]), settings);
    expect(brief(lines, noResults)).toEqual([`${checkAt} check stall fi,nl,de`, `${checkAt} switch fi>nl current-silent`]);
  });

  it('a silence shorter than the threshold starts nothing', async () => {
    const lines = await simulate(
      baseScenario({ until: '4m' }, [
        { at: '2m', servers: { fi: 'down' } },
        { at: '2m4.5s', servers: { fi: 60 } },
      ]),
    );
    // Prepared at half the threshold; healed before it: no check, and nothing recorded.
    expect(brief(lines, { prepare: true })).toEqual(['122500 prepare fi,nl,de', '122525 de 25 unrecorded', '122571 nl 71 unrecorded']);
    expect(lines.at(-1)).toMatchObject({ history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [70, 72, 71] } });
  });
});

describe('trigger 2: the core failed to connect to the server', () => {
  it('checks at the first reported dial failure, before any stall', async () => {
    const lines = await simulate(baseScenario({ until: '2m30s' }, [{ at: '2m', servers: { fi: 'refused' } }]));
    expect(brief(lines)).toEqual([
      '120500 check dial-failure fi,nl,de',
      '120501 fi silent',
      '120525 de 25',
      '120571 nl 71',
      '120571 switch fi>nl current-silent',
    ]);
  });

  it.each([
    { name: 'once', failures: ['2m'] },
    { name: 'five times in a row', failures: ['2m', '2m0.5s', '2m1s', '2m1.5s', '2m2s'] },
  ])('a destination that failed through the working server ($name: the app’s own fetch of an unreachable provider) is not the server’s failure: no check', async ({ failures }) => {
    const lines = await simulate(baseScenario({ until: '2m30s' }, failures.map((at) => ({ at, action: { destinationFailure: true } }))));
    expect(brief(lines)).toEqual([]);
    expect(lines.filter((l) => l.type === 'refused')).toEqual([]);
  });
});

describe('trigger 3: nothing received for 30 s although something was sent', () => {
  it('catches a sparse sender that never stalls for 5 s in a row', async () => {
    // The app sends in one interval every 3 s; its first unanswered send is in (122.5 s, 123 s].
    const lines = await simulate(
      baseScenario({ until: '3m' }, [
        { at: '0s', traffic: 'sparse' },
        { at: '2m', servers: { fi: 'down' } },
      ]),
    );
    expect(brief(lines, noResults)).toEqual(['152500 check no-receive-30s fi,nl,de', '153300 switch fi>nl current-silent']);
  });
});

describe('trigger 4: 5 min since the last scheduled check, and traffic in that time', () => {
  it('probes the current server and the two best every 5 minutes while used', async () => {
    const lines = await simulate(baseScenario({ until: '11m' }));
    expect(brief(lines)).toEqual([
      '300000 check scheduled fi,nl,de',
      '300025 de 25',
      '300060 fi 60',
      '300071 nl 71',
      '300071 stay fi current-answered',
      '600000 check scheduled fi,nl,de',
      '600025 de 25',
      '600060 fi 60',
      '600071 nl 71',
      '600071 stay fi current-answered',
    ]);
  });

  it('waits for traffic: an idle stretch defers the scheduled check until the device is used again', async () => {
    const lines = await simulate(baseScenario({ until: '13m' }, [{ at: '0s', traffic: 'idle' }, { at: '7m', traffic: 'active' }]));
    expect(brief(lines, noResults)).toEqual([
      '420500 check scheduled fi,nl,de',
      '420571 stay fi current-answered',
      '720500 check scheduled fi,nl,de',
      '720571 stay fi current-answered',
    ]);
  });

  it('an idle device never has its servers touched, even when its server dies', async () => {
    const input = baseScenario({ until: '1h' }, [{ at: '0s', traffic: 'idle' }, { at: '10m', servers: { fi: 'down' } }]);
    const lines = await simulate(input);
    expect(brief(lines)).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ type: 'end', current: 'fi', history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [70, 72, 71] } });
  });
});

describe('no check while the OS reports no network', () => {
  it('stays still through "none", and checks once a network is back and the server is still silent', async () => {
    const lines = await simulate(
      baseScenario({ until: '5m' }, [
        { at: '2m', network: 'none', servers: { fi: 'down' } },
        { at: '4m', network: 'online' },
      ]),
    );
    // The network change forgets the silence seen before it: the stall counts from 4 m.
    expect(brief(lines, noResults)).toEqual(['245000 check stall fi,nl,de', '245000 switch fi>nl current-silent']);
  });
});

describe('a change of settings is an event', () => {
  it('reaches Auto as an event, is logged, and holds from then on: a scenario may change the stall threshold at a time', async () => {
    const lines = await simulate(
      baseScenario({ until: '2m30s' }, [
        { at: '1m', action: { settings: { stallThresholdMs: 2000 } } },
        { at: '2m', servers: { fi: 'down' } },
      ]),
    );
    expect(lines.find((l) => l.type === 'settings')).toEqual({ type: 'settings', at: 60_000, stallThresholdMs: 2000, probeTimeoutMs: 5000 });
    expect(brief(lines, noResults)).toEqual(['60000 settings', '122000 check stall fi,nl,de', '122000 switch fi>nl current-silent']);
  });

  it('the same settings again change nothing and log nothing', async () => {
    const lines = await simulate(baseScenario({ until: '2m' }, [{ at: '1m', action: { settings: { stallThresholdMs: 5000 } } }]));
    expect(lines.filter((l) => l.type === 'settings')).toEqual([]);
  });
});
