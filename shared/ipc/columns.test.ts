import { describe, expect, it } from 'vitest';
import { fromColumns, toColumns } from './columns';

const roundTrip = <T extends object>(records: T[], defaults: Record<string, unknown> = {}) =>
  fromColumns<T>(JSON.parse(JSON.stringify(toColumns(records, defaults))), defaults);

describe('records in columns', () => {
  it('read back field for field: values, nulls, zeros, nested objects and absent optional fields', () => {
    const records = [
      { id: 'a', port: 0, via: 'b', info: { ip: '198.51.100.7', at: 1 }, note: null },
      { id: 'b', port: 443, info: null, note: 'late' },
      { id: 'c', port: 8443, info: { ip: '198.51.100.7', at: 1 }, note: null },
    ];
    const back = roundTrip(records);
    expect(back).toEqual(records);
    // Absent stays absent (not undefined, not null): the list tells a chained server by `via`.
    expect(Object.prototype.hasOwnProperty.call(back[1], 'via')).toBe(false);
  });

  it('write nothing for a field every record leaves at its default, and only the others for a field few set', () => {
    const defaults = { delayMs: null, testing: false };
    const records = Array.from({ length: 100 }, (_, i) => ({ delayMs: i === 7 ? 0 : null, testing: false }));
    const table = toColumns(records, defaults);
    expect(Object.keys(table.columns)).toEqual(['delayMs']);
    expect(table.columns.delayMs).toEqual({ at: [7], values: [0] });
    expect(roundTrip(records, defaults)).toEqual(records);
  });

  it('write a value many records share once (an exit, a protocol), and values that all differ as they are', () => {
    const exits = [{ ip: '198.51.100.1', countryCode: 'DE' }, { ip: '198.51.100.2', countryCode: 'FI' }];
    const records = Array.from({ length: 1000 }, (_, i) => ({ protocol: i % 3 === 0 ? 'vmess' : 'vless', exit: { ...exits[i % 2]! }, testedAt: 1_700_000_000_000 + i }));
    const table = toColumns(records);
    expect(table.columns.protocol?.dictionary).toEqual(['vmess', 'vless']);
    expect(table.columns.exit?.dictionary).toEqual(exits);
    expect(table.columns.testedAt?.dictionary).toBeUndefined();
    expect(roundTrip(records)).toEqual(records);
    const oneByOne = JSON.stringify(records).length;
    expect(JSON.stringify(table).length).toBeLessThan(oneByOne / 2);
  });

  it('put objects that all differ (a verdict with its own time) in columns of their own', () => {
    const records = Array.from({ length: 300 }, (_, i) => ({
      reachability: i === 3 ? null : { verdict: i % 5 ? 'ok' : 'down', reason: 'answers from here', vantagePoints: [], derivedAt: 1_700_000_000_000 + i },
    }));
    const table = toColumns(records, { reachability: null });
    const nested = table.columns.reachability?.nested;
    expect(table.columns.reachability?.at).toHaveLength(299);
    expect(nested?.columns.verdict?.dictionary).toEqual(['down', 'ok']);
    expect(nested?.columns.derivedAt?.values).toHaveLength(299);
    expect(roundTrip(records, { reachability: null })).toEqual(records);
    expect(JSON.stringify(table).length).toBeLessThan(JSON.stringify(records).length / 3);
  });

  it('keep strings that all differ out of a dictionary (ids, names)', () => {
    const records = Array.from({ length: 500 }, (_, i) => ({ id: `s${i}` }));
    expect(toColumns(records).columns.id).toEqual({ values: records.map((r) => r.id) });
  });

  it('refuse a table whose columns do not fit its records, rather than read it wrong', () => {
    expect(() => fromColumns({ rows: 2, columns: { id: { values: ['a'] } } })).toThrow(/1 values for 2 records/);
    expect(() => fromColumns({ rows: 2, columns: { id: { at: [5], values: ['a'] } } })).toThrow(/names record 5 of 2/);
    expect(() => fromColumns({ rows: 2, columns: { id: { at: [0, 1], values: ['a'] } } })).toThrow(/lists 2 records but 1 values/);
  });

  it('give each record the fields its seed brings (an id kept elsewhere), under its own columns', () => {
    const table = toColumns([{ name: 'x' }, { name: 'y' }]);
    expect(fromColumns(table, {}, (row) => ({ id: `s${row}` }))).toEqual([
      { id: 's0', name: 'x' },
      { id: 's1', name: 'y' },
    ]);
  });
});
