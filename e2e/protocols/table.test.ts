import { describe, expect, it } from 'vitest';
import { type Cell, cellKey, markdownTable, tableDifferences } from './table';

describe('the protocol table', () => {
  it('names a cell by row and core', () => {
    expect(cellKey('tuic-v5', 'sing-box')).toBe('tuic-v5 × sing-box');
  });

  it('reports every cell that changed, went missing or is new', () => {
    const expected: Record<string, Cell> = { 'a × xray': 'run', 'a × v2ray': 'unsupported: no', 'b × xray': 'run' };
    const actual: Record<string, Cell> = { 'a × xray': 'fails: exit IP 127.0.0.1', 'a × v2ray': 'unsupported: no', 'c × xray': 'run' };
    expect(tableDifferences(expected, actual)).toEqual([
      'a × xray: expected run → got fails: exit IP 127.0.0.1',
      'b × xray: expected run → got (not measured)',
      'c × xray: expected (no such cell) → got run',
    ]);
    expect(tableDifferences(expected, expected)).toEqual([]);
  });

  it('prints markdown with a column per core, the reasons kept and pipes escaped', () => {
    const cells: Record<string, Cell> = {
      'r × xray': 'run',
      'r × sing-box': 'unsupported: not supported by sing-box 1.14.1: sing-box configs are not generated yet',
      'r × v2ray': 'fails: a | b',
    };
    expect(markdownTable([{ row: 'r', label: 'VLESS REALITY' }], cells).split('\n')).toEqual([
      '| protocol | xray | sing-box | v2ray |',
      '|---|---|---|---|',
      '| VLESS REALITY | ✅ runs | — not supported by sing-box 1.14.1: sing-box configs are not generated yet | ❌ a \\| b |',
    ]);
  });
});
