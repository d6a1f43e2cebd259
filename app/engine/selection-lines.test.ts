import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../shared/domain/auto';
import { selectionReport } from './selection-lines';

const delays: Record<string, number | null> = { a: 300, b: 120, c: null, d: 120 };
const delayOf = (id: string) => delays[id] ?? null;
const group = { name: 'Provider A', serverIds: ['a', 'b', 'c', 'd'] };

describe('selectionReport (LOWEST lines)', () => {
  it.each<[string, AutoDecision, ReturnType<typeof selectionReport>]>([
    [
      'a stay keeps the current server, naming the fastest member beside it',
      { type: 'stay', at: 0, id: 'a', reason: 'current answers' },
      { group: 'Auto (Provider A)', decision: 'kept', serverId: 'a', fastestId: 'b', reason: 'current answers' },
    ],
    [
      'a switch takes the new server',
      { type: 'switch', at: 0, from: 'a', to: 'd', reason: 'current-silent' },
      { group: 'Auto (Provider A)', decision: 'taken', serverId: 'd', fastestId: 'b', reason: 'current-silent' },
    ],
    ['a check is no selection', { type: 'check', at: 0, trigger: 'stall', probe: ['a'] }, null],
  ])('%s', (_name, decision, expected) => {
    expect(selectionReport(decision, group, delayOf)).toEqual(expected);
  });

  it('with Auto off and no member answering, the line says so', () => {
    expect(selectionReport({ type: 'stay', at: 0, id: 'x', reason: 'r' }, null, () => null)).toEqual({
      group: 'Auto (off)',
      decision: 'kept',
      serverId: 'x',
      fastestId: null,
      reason: 'r',
    });
  });
});
