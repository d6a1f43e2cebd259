import { describe, expect, it } from 'vitest';
import type { Chains } from '../../shared/settings';
import { type ChainChange, chainChange } from './chain-changes';

describe('chainChange', () => {
  const cases: [string, Chains, Chains, string | null, ChainChange][] = [
    ['nothing changed', { b: 'a' }, { b: 'a' }, 'b', { changed: [], reconnect: false }],
    ['a front chosen for another server: it is retested, the tunnel stays', {}, { c: 'a' }, 'b', { changed: ['c'], reconnect: false }],
    ['a front chosen for the server the tunnel is on: the core starts again', {}, { b: 'a' }, 'b', { changed: ['b'], reconnect: true }],
    ['the front moved', { b: 'a' }, { b: 'c' }, 'b', { changed: ['b'], reconnect: true }],
    ['the front removed', { b: 'a', c: 'a' }, { c: 'a' }, 'b', { changed: ['b'], reconnect: true }],
    ['disconnected: nothing to restart', { b: 'a' }, {}, null, { changed: ['b'], reconnect: false }],
  ];
  it.each(cases)('%s', (_, previous, next, current, expected) => {
    expect(chainChange(previous, next, current)).toEqual(expected);
  });
});
