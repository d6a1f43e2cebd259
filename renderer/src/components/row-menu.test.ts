import { describe, expect, it } from 'vitest';
import { menuFocusAfter } from './row-menu';

describe('menuFocusAfter', () => {
  it.each<[string, number, number | null]>([
    ['ArrowDown', 0, 1],
    ['ArrowDown', 4, 0],
    ['ArrowUp', 0, 4],
    ['ArrowUp', 3, 2],
    ['Home', 3, 0],
    ['End', 1, 4],
    ['Tab', 1, null],
  ])('%s from %i → %s', (key, from, to) => {
    expect(menuFocusAfter(key, from, 5)).toBe(to);
  });

  it('an empty menu moves nowhere', () => {
    expect(menuFocusAfter('ArrowDown', 0, 0)).toBeNull();
  });
});
