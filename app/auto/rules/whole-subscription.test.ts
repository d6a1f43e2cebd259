/** spec/auto.md "When the whole subscription is silent": neighbours, widening, the move, network loss. */
import { describe, expect, it } from 'vitest';
import { baseScenario, brief, simulate } from '../testing/simulate';

const noResults = { results: false } as const;
const up = { network: 'online', traffic: 'active' } as const;

describe('asking the neighbours: the 2 best of the nearest subscription above and below', () => {
  it('skips empty subscriptions and never asks beyond the nearest', async () => {
    const input = {
      subscriptions: [
        { id: 'Y', servers: ['y1'] },
        { id: 'Z', servers: ['z1', 'z2', 'z3'] },
        { id: 'E', servers: [] },
        { id: 'A', servers: ['a1', 'a2'] },
        { id: 'B', servers: ['b1', 'b2', 'b3'] },
        { id: 'C', servers: ['c1'] },
      ],
      auto: 'A',
      current: 'a1',
      // Z's best are z3 then z1; B's best are b2 then b3.
      history: { z1: [40, 40], z2: [90, 90], z3: [30, 30], b1: [80, 80], b2: [20, 20], b3: [50, 50] },
      world: [{ at: '0s', ...up, servers: { a1: 60, a2: 60, y1: 9, z1: 40, z2: 90, z3: 30, b1: 80, b2: 20, b3: 50, c1: 9 } }, { at: '2m', servers: { a1: 'down', a2: 'down' } }],
      until: '2m15s',
    };
    const lines = await simulate(input);
    expect(brief(lines, noResults)).toEqual([
      '125000 check stall a1,a2',
      '127500 check neighbour-sub z3,z1,b2,b3',
      '127550 stay a1 own-subscription-silent',
      '130000 pause after-check until 142550',
    ]);
  });
});

describe('neighbours answer: the own subscription is down', () => {
  const input = {
    subscriptions: [
      { id: 'A', servers: ['a1', 'a2', 'a3'] },
      { id: 'B', servers: ['b1', 'b2'] },
    ],
    auto: 'A',
    current: 'a1',
    world: [{ at: '0s', ...up, servers: { a1: 60, a2: 60, a3: 60, b1: 50, b2: 70 } }, { at: '2m', servers: { a1: 'down', a2: 'down', a3: 'down' } }],
    until: '2m40s',
  };

  it('stays, widens the next check, and moves to the best neighbour server when it is silent again', async () => {
    const lines = await simulate(input);
    expect(brief(lines)).toEqual([
      '125000 check stall a1,a2,a3',
      '127500 a1 silent',
      '127500 a2 silent',
      '127500 a3 silent',
      '127500 check neighbour-sub b1,b2',
      '127550 b1 50',
      '127570 b2 70',
      '127570 stay a1 own-subscription-silent',
      // The stall goes on; the 15 s cooldown after a check holds it.
      '130000 pause after-check until 142570',
      '143000 check widened a1,a2,a3',
      '148000 a1 silent',
      '148000 a2 silent',
      '148000 a3 silent',
      '148000 check neighbour-sub b1,b2',
      '148050 b1 50',
      '148070 b2 70',
      '148070 switch a1>b1 neighbour-subscription',
    ]);
  });

  it('the widened check covers up to 30 servers', async () => {
    const ids = Array.from({ length: 35 }, (_, i) => `a${i + 1}`);
    const lines = await simulate({
      ...input,
      subscriptions: [{ id: 'A', servers: ids }, input.subscriptions[1]],
      world: [{ at: '0s', ...up, servers: { ...Object.fromEntries(ids.map((id) => [id, 60])), b1: 50, b2: 70 } }, { at: '2m', servers: Object.fromEntries(ids.map((id) => [id, 'down'])) }],
    });
    const checks = lines.filter((l) => l.type === 'check').map((l) => [l.trigger, (l.probe as string[]).length]);
    expect(checks).toEqual([
      ['stall', 10],
      ['neighbour-sub', 2],
      ['widened', 30],
      ['neighbour-sub', 2],
    ]);
  });

  it('the widened check comes no later than 5 min after: the scheduled check, whatever woke it, is the widened one', async () => {
    // The user stops sending as the first check starts (the traffic before it still makes the
    // scheduled check due at 5 m), and comes back at 10 m.
    const world = [...input.world, { at: '125s', traffic: 'idle' }, { at: '10m', traffic: 'active' }];
    const lines = await simulate({ ...input, world, until: '10m10s' });
    expect(brief(lines, noResults)).toEqual([
      '125000 check stall a1,a2,a3',
      '127500 check neighbour-sub b1,b2',
      '127570 stay a1 own-subscription-silent',
      '300000 check widened a1,a2,a3',
      '305000 check neighbour-sub b1,b2',
      '305070 switch a1>b1 neighbour-subscription',
      // Away: the own subscription is retried once a minute, but only when the device is used.
      '600500 check own-sub-retry b1,a1,a2,a3',
      '605500 stay b1 own-subscription-silent',
      '605500 pause after-check until 620500',
    ]);
  });
});

describe('neighbours silent too: the network is gone', () => {
  it('an only subscription has no neighbours to ask: it is treated as a lost network, nothing recorded', async () => {
    const lines = await simulate({
      subscriptions: [{ id: 'A', servers: ['a1', 'a2'] }],
      auto: 'A',
      current: 'a1',
      world: [{ at: '0s', ...up, servers: { a1: 60, a2: 60 } }, { at: '2m', network: 'offline' }],
      until: '2m20s',
    });
    expect(brief(lines)).toEqual(['125000 check stall a1,a2', '127500 a1 silent unrecorded', '127500 a2 silent unrecorded', '127500 network-lost 1 next 15000']);
  });

  it('an OS network change lifts the pause at once', async () => {
    // Offline from 2 m; after attempt 2 (160 s) the pause runs to 190 s. At 170 s the OS reports no
    // network, at 172 s a network again (still nothing gets through): the pause is lifted and the
    // stall counts from 172 s.
    const lines = await simulate({
      subscriptions: [
        { id: 'A', servers: ['fi', 'nl'] },
        { id: 'B', servers: ['b1'] },
      ],
      auto: 'A',
      current: 'fi',
      world: [
        { at: '0s', ...up, servers: { fi: 60, nl: 70, b1: 50 } },
        { at: '2m', network: 'offline' },
        { at: '170s', network: 'none' },
        { at: '172s', network: 'offline' },
      ],
      until: '3m10s',
    });
    expect(brief(lines, noResults)).toEqual([
      '125000 check stall fi,nl',
      '127500 check neighbour-sub b1',
      '132500 network-lost 1 next 15000',
      '147500 check stall fi,nl',
      '152500 check neighbour-sub b1',
      '157500 network-lost 2 next 30000',
      '177000 check stall fi,nl',
      '179500 check neighbour-sub b1',
      // The count started over with the new network.
      '184500 network-lost 1 next 15000',
    ]);
  });
});

describe('a late probe failure once a check found the network gone', () => {
  it('is the network’s, not the server’s: it is logged unrecorded and costs the server nothing', async () => {
    // Finland goes silent at 2 m; its stall check moves to the Netherlands at 2m5s while Finland's
    // probe (a 30 s timeout, sent with the preparation at 2m2.5s) runs on. At 2m6s the user's
    // network goes away and the timeout is set to 2 s: the next check finds the network gone at
    // 2m14s, before Finland's probe ends at 2m32.5s.
    const lines = await simulate(
      baseScenario({ until: '2m33s' }, [
        { at: '0s', action: { settings: { urlTestTimeoutMs: 30_000 } } },
        { at: '2m', servers: { fi: 'down' } },
        { at: '2m6s', network: 'offline', action: { settings: { urlTestTimeoutMs: 2000 } } },
      ]),
    );
    expect(brief(lines).filter((l) => Number(l.split(' ')[0]) >= 125_000)).toEqual([
      '125000 check stall fi,nl,de',
      '125000 switch fi>nl current-silent',
      '126000 settings',
      '131000 check stall nl,fi,de',
      '132000 nl silent unrecorded',
      '132000 fi silent unrecorded',
      '132000 de silent unrecorded',
      '132000 check neighbour-sub b1,b2',
      '134000 b1 silent unrecorded',
      '134000 b2 silent unrecorded',
      '134000 network-lost 1 next 15000',
      '149000 check stall nl,fi,de',
      // The first check's probe of Finland times out while the network is still gone.
      '152500 fi silent unrecorded',
    ]);
    expect(lines.at(-1)).toMatchObject({ history: { fi: [60, 61, 62] } });
  });
});
