import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../../shared/domain/server';
import { capReached, mayDelayTest, mayLookUp, mayTransferTest, nextCandidates, type TestFocus } from './test-budget';

const id = (s: string) => s as ServerId;
const focus: TestFocus = { current: [id('cur')], candidates: [id('c1'), id('c2')], opened: new Set([id('open')]) };

describe('which tests run for which servers', () => {
  it.each([
    // server, everyServer, capped, transfer, delay
    ['cur', false, false, true, true],
    ['c1', false, false, true, true],
    ['open', false, false, true, true],
    ['other', false, false, false, true],
    ['other', true, false, true, true],
    ['cur', false, true, false, true],
    ['c2', true, true, false, true],
    ['open', false, true, false, true],
    ['other', false, true, false, false],
    ['other', true, true, false, false],
  ] as const)('%s (every server %s, capped %s): transfer %s, delay %s', (server, everyServer, capped, transfer, delay) => {
    expect(mayTransferTest(id(server), focus, { everyServer, capped })).toBe(transfer);
    expect(mayDelayTest(id(server), focus, { everyServer, capped })).toBe(delay);
  });

  it('looks up IP info only under the cap', () => {
    expect(mayLookUp({ everyServer: false, capped: false })).toBe(true);
    expect(mayLookUp({ everyServer: false, capped: true })).toBe(false);
  });

  it.each([
    [0, 0, false],
    [10 ** 9, 0, false],
    [99, 100, false],
    [100, 100, true],
    [101, 100, true],
  ])('%d bytes in the last day against a cap of %d: capped %s', (used, cap, capped) => {
    expect(capReached(used, cap)).toBe(capped);
  });

  it.each([
    [['a', 'b', 'c', 'd'], 'a', 2, ['b', 'c']],
    [['b', 'a', 'c'], 'a', 5, ['b', 'c']],
    [['a', 'b'], null, 1, ['a']],
    [['a', 'b'], 'a', 0, []],
  ] as const)('queue %j with current %s, K = %d: candidates %j', (queue, current, k, expected) => {
    expect(nextCandidates(queue.map(id), current === null ? null : id(current), k)).toEqual(expected);
  });
});
