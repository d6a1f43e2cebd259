import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../shared/domain/auto';
import type { SelectionReport } from '../monitor/monitor';
import { reportSelections, selectionReport } from './selection-lines';
import { subscriptionOf, vlessServer } from './testing/servers';

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

describe('reportSelections', () => {
  it("writes Auto's keep and take decisions on its subscription as they are made, and stops when told", () => {
    let listener: ((decision: AutoDecision) => void) | null = null;
    const lines: SelectionReport[] = [];
    const provider = subscriptionOf('s1', ['a', 'b', 'c', 'd'].map((id) => vlessServer(id, 's1')), { name: 'Provider A' });
    const stop = reportSelections({
      auto: {
        onDecision: (l) => {
          listener = l;
          return () => (listener = null);
        },
        snapshot: () => ({ subscriptionId: 's1' }),
      },
      subscriptions: { get: (id) => (id === 's1' ? provider : undefined) },
      monitor: { status: (id) => ({ delayMs: delayOf(id) }), reportSelection: (report) => lines.push(report) },
    });
    listener!({ type: 'check', at: 0, trigger: 'stall', probe: ['a'] });
    listener!({ type: 'switch', at: 0, from: 'a', to: 'd', reason: 'current-silent' });
    expect(lines).toEqual([{ group: 'Auto (Provider A)', decision: 'taken', serverId: 'd', fastestId: 'b', reason: 'current-silent' }]);
    stop();
    expect(listener).toBeNull();
  });
});
