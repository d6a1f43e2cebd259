import { describe, expect, it } from 'vitest';
import { excludedAfter, type RowMenuFacts, rowMenuItems } from './server-actions';

const facts = (overrides: Partial<RowMenuFacts> = {}): RowMenuFacts => ({ isCurrent: false, isExcluded: false, isLastAvailable: false, testing: false, ...overrides });
const shown = (f: RowMenuFacts) => rowMenuItems(f).map((i) => `${i.action}${i.enabled ? '' : ' (off)'}`);

describe('rowMenuItems', () => {
  it.each<[string, Partial<RowMenuFacts>, string[]]>([
    ['another server: every action', {}, ['connect', 'test', 'speed-test', 'exclude', 'share', 'details']],
    ['the current server: no Connect to what already carries the traffic', { isCurrent: true }, ['connect (off)', 'test', 'speed-test', 'exclude', 'share', 'details']],
    ['an excluded server: Include in its place', { isExcluded: true }, ['connect', 'test', 'speed-test', 'include', 'share', 'details']],
    ['the last server Auto may use: Exclude cannot run', { isLastAvailable: true }, ['connect', 'test', 'speed-test', 'exclude (off)', 'share', 'details']],
    ['under test: Test waits', { testing: true }, ['connect', 'test (off)', 'speed-test', 'exclude', 'share', 'details']],
    ['a speed test under way: another waits (one run at a time)', { speedTestRunning: true }, ['connect', 'test', 'speed-test (off)', 'exclude', 'share', 'details']],
  ])('%s', (_, overrides, expected) => {
    expect(shown(facts(overrides))).toEqual(expected);
  });

  it('says why a speed test cannot start while one runs', () => {
    expect(rowMenuItems(facts({ speedTestRunning: true })).find((i) => i.action === 'speed-test')?.why).toBe('rowMenu.speedTestRunning');
  });

  it('says why Exclude cannot run, in the exclude dialog’s words', () => {
    expect(rowMenuItems(facts({ isLastAvailable: true })).find((i) => i.action === 'exclude')?.why).toBe('exclude.lastUnmarked');
  });
});

describe('excludedAfter', () => {
  it.each<[string, string[], string, 'exclude' | 'include', string[]]>([
    ['exclude adds the server', ['a'], 'b', 'exclude', ['a', 'b']],
    ['exclude of one already excluded keeps it once', ['a', 'b'], 'b', 'exclude', ['a', 'b']],
    ['include removes it', ['a', 'b'], 'a', 'include', ['b']],
    ['include of one not excluded changes nothing', ['a'], 'c', 'include', ['a']],
  ])('%s', (_, before, id, action, after) => {
    expect(excludedAfter(before, id, action)).toEqual(after);
  });
});
