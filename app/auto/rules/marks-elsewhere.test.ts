/**
 * Marks made in a list the reducer does not own (`world.markedElsewhere`): a server group's
 * reducer honours the marks of the servers' own subscriptions as its own, beside the group's own
 * marks. spec/auto.md "Servers Auto does not take (exclusions)", scoped to a group.
 */
import { describe, expect, it } from 'vitest';
import { delays } from '../testing/measurements';
import { runReducer, T0 } from '../testing/reducer';
import type { AutoCommand } from '../policy/types';

// fi is best, then nl, then de (its 300 ms sample weighs on its score).
const measurements = { fi: delays([30, 31, 32], { now: T0 }), nl: delays([60, 61, 62], { now: T0 }), de: delays([90, 91, 300], { now: T0 }) };

function group(elsewhere: string[], own: string[] = []) {
  const run = runReducer(
    { subscriptions: [{ id: 'A', serverIds: ['fi', 'nl', 'de'] }, { id: 'B', serverIds: ['b1'] }], measurements, markedElsewhere: elsewhere },
    { persisted: { subscriptionId: null, excluded: own.length ? { A: own } : {} } },
  );
  return run;
}

const switches = (commands: readonly AutoCommand[]) => commands.flatMap((c) => (c.kind === 'connect' ? [`${c.serverId} ${c.reason}`] : []));
const refusals = (commands: readonly AutoCommand[]) => commands.flatMap((c) => (c.kind === 'refuse' ? [c.code] : []));

describe('the first pick leaves out servers marked elsewhere and the own marks alike', () => {
  it.each([
    { elsewhere: [], own: [], pick: 'fi' },
    { elsewhere: ['fi'], own: [], pick: 'nl' },
    { elsewhere: [], own: ['fi'], pick: 'nl' },
    { elsewhere: ['fi'], own: ['nl'], pick: 'de' },
    // Every server marked (here by either list): Auto chooses among them, as after an update.
    { elsewhere: ['fi', 'nl', 'de'], own: [], pick: 'fi' },
    { elsewhere: ['fi', 'nl'], own: ['de'], pick: 'fi' },
  ])('marked elsewhere $elsewhere, own $own: $pick', ({ elsewhere, own, pick }) => {
    const run = group(elsewhere, own);
    expect(switches(run.send({ type: 'set-auto', subscriptionId: 'A' }))).toEqual([`${pick} auto-on`]);
  });
});

describe('the own marks', () => {
  it.each([
    { elsewhere: ['fi'], ids: ['nl'], refused: [], own: ['nl'] },
    // The last server neither list marks cannot be marked here.
    { elsewhere: ['fi', 'nl'], ids: ['de'], refused: ['last-unmarked-server'], own: [] },
    { elsewhere: ['fi'], ids: ['nl', 'de'], refused: ['last-unmarked-server'], own: [] },
    // Marks elsewhere that already take every server are no refusal of these.
    { elsewhere: ['fi', 'nl', 'de'], ids: ['de'], refused: [], own: ['de'] },
    { elsewhere: ['fi', 'nl', 'de'], ids: [], refused: [], own: [] },
  ])('marked elsewhere $elsewhere, marking $ids: refused $refused', ({ elsewhere, ids, refused, own }) => {
    const run = group(elsewhere);
    expect(refusals(run.send({ type: 'set-excluded', subscriptionId: 'A', ids }))).toEqual(refused);
    expect(run.state.excluded.A ?? []).toEqual(own);
  });
});

describe('marks elsewhere changing under a running pick', () => {
  it('the current server marked elsewhere is left for the best of the others at once', () => {
    const elsewhere: string[] = [];
    const run = group(elsewhere);
    run.send({ type: 'set-auto', subscriptionId: 'A' });
    run.send({ type: 'tunnel-connected', serverId: 'fi' }, 100);
    elsewhere.push('fi');
    expect(switches(run.send({ type: 'marks-changed' }, 1000))).toEqual(['nl excluded']);
    expect(run.decisions().at(-1)).toMatchObject({ type: 'switch', from: 'fi', to: 'nl', reason: 'excluded' });
  });

  it('a change that leaves the current server unmarked, or every server marked, moves nothing', () => {
    const elsewhere: string[] = [];
    const run = group(elsewhere);
    run.send({ type: 'set-auto', subscriptionId: 'A' });
    run.send({ type: 'tunnel-connected', serverId: 'fi' }, 100);
    elsewhere.push('de');
    expect(switches(run.send({ type: 'marks-changed' }, 1000))).toEqual([]);
    elsewhere.push('fi', 'nl');
    expect(switches(run.send({ type: 'marks-changed' }, 2000))).toEqual([]);
  });

  it('a return candidate marked elsewhere is forgotten', () => {
    const elsewhere: string[] = [];
    const run = runReducer(
      { subscriptions: [{ id: 'A', serverIds: ['fi', 'nl', 'de'] }], measurements, markedElsewhere: elsewhere },
      { persisted: { subscriptionId: 'A', excluded: {}, returnCandidate: 'fi' } },
    );
    run.send({ type: 'tunnel-connected', serverId: 'nl' });
    expect(run.state.returnCandidate).toBe('fi');
    elsewhere.push('fi');
    run.send({ type: 'marks-changed' }, 1000);
    expect(run.state.returnCandidate).toBeNull();
  });
});
