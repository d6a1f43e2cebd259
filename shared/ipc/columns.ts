/**
 * Records in columns, for the WebSocket's large messages (the first snapshot of 5,000 servers):
 * one array per field instead of one object per record, so a field's name is written once, a
 * field every record leaves at its default costs nothing, a field few records set lists only
 * those, and a value many records share (an exit's IP-info, a protocol) is written once and
 * referred to by its place. `fromColumns(toColumns(r, d), d)` equals `r` field for field, absent
 * optional fields included; a record that lacks a field with a default reads back with the default
 * (as a status sent alone does, wire.ts).
 */

/**
 * One field of every record. Without `at` it is dense: `values` has one entry per record. With
 * `at` it is sparse: the records listed there have the value at the same place in `values`, the
 * others the default. With `dictionary`, `values` holds places in it instead of the values; with
 * `nested`, the values are objects, themselves in columns.
 */
export interface Column {
  at?: number[];
  values?: unknown[];
  dictionary?: unknown[];
  /** Instead of `values`: objects that all differ (a verdict and its time), in columns of their own. */
  nested?: Columns;
}

export interface Columns {
  rows: number;
  columns: Record<string, Column>;
}

/** A field's default (what a record has when its column does not list it); absent: the field is left out. */
export type Defaults = Readonly<Record<string, unknown>>;

/** Below this many values a dictionary saves too little to be worth reading. */
const DICTIONARY_MIN_VALUES = 8;
/** Values looked at before giving up on a dictionary for a field whose values are all different. */
const DICTIONARY_PROBE = 64;

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * `values` as places in a dictionary of their distinct values, or null when that saves nothing
 * (numbers and flags are as short as a place; a field whose values differ from record to record,
 * like a measurement's time, would only grow).
 */
function dictionaryOf(values: readonly unknown[]): { dictionary: unknown[]; places: number[] } | null {
  if (values.length < DICTIONARY_MIN_VALUES || values.every(isPrimitive)) return null;
  const byString = new Map<string, number>();
  const byReference = new Map<unknown, number>();
  const byText = new Map<string, number>();
  const dictionary: unknown[] = [];
  const places: number[] = [];
  const enter = (value: unknown): number => {
    dictionary.push(value);
    return dictionary.length - 1;
  };
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    let place: number | undefined;
    if (typeof value === 'string') {
      // Strings are their own key: no text to make per value (5,000 verdict reasons).
      place = byString.get(value);
      if (place === undefined) byString.set(value, (place = enter(value)));
    } else {
      place = byReference.get(value);
      if (place === undefined) {
        // Every verdict without vantage points has an array of its own: 5,000 empty ones to write out.
        const text = Array.isArray(value) && value.length === 0 ? '[]' : JSON.stringify(value);
        place = byText.get(text);
        if (place === undefined) byText.set(text, (place = enter(value)));
        if (value !== null && typeof value === 'object') byReference.set(value, place);
      }
    }
    places.push(place);
    if (i + 1 === DICTIONARY_PROBE && dictionary.length > DICTIONARY_PROBE / 2) return null;
  }
  return dictionary.length * 2 <= values.length ? { dictionary, places } : null;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The field names of `records`, those of `defaults` first (in their order), then any other. Records
 * of one shape (the common case: the engine makes them all alike) are read once per shape.
 */
function fieldsOf(records: readonly object[], defaults: Defaults): string[] {
  const fields = new Set(Object.keys(defaults));
  let shape: string[] | null = null;
  for (const record of records) {
    const keys = Object.keys(record);
    if (shape !== null && sameKeys(keys, shape)) continue;
    for (const key of keys) fields.add(key);
    shape = keys;
  }
  return [...fields];
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

export function toColumns(records: readonly object[], defaults: Defaults = {}, skip: readonly string[] = []): Columns {
  const columns: Record<string, Column> = {};
  for (const field of fieldsOf(records, defaults)) {
    if (skip.includes(field)) continue;
    const hasDefault = Object.prototype.hasOwnProperty.call(defaults, field);
    const fallback = defaults[field];
    const at: number[] = [];
    const values: unknown[] = [];
    for (let row = 0; row < records.length; row += 1) {
      const record = records[row] as Record<string, unknown>;
      const value = record[field];
      // A value other than the default is the record's own unless a prototype lent it: rare enough
      // that the ownership check runs only then (and for an undefined, which may be absent).
      if (hasDefault && Object.is(value, fallback)) continue;
      if (!Object.prototype.hasOwnProperty.call(record, field)) continue;
      at.push(row);
      values.push(value);
    }
    if (values.length === 0) continue;
    const dense = values.length === records.length;
    const dictionary = dictionaryOf(values);
    const column: Column = dictionary
      ? { values: dictionary.places, dictionary: dictionary.dictionary }
      : values.length >= DICTIONARY_MIN_VALUES && values.every(isPlainObject)
        ? { nested: toColumns(values as object[]) }
        : { values };
    if (!dense) column.at = at;
    columns[field] = column;
  }
  return { rows: records.length, columns };
}

/** The records back, each starting from `defaults`; `seed(row)` gives a record its fields from elsewhere (an id). */
export function fromColumns<T>(table: Columns, defaults: Defaults = {}, seed: (row: number) => object = () => ({})): T[] {
  const records: Record<string, unknown>[] = [];
  // Object.assign, not `{ ...seed(row), ...defaults }`: V8 took ~30 times as long for the two spreads.
  for (let row = 0; row < table.rows; row += 1) records.push(Object.assign(seed(row), defaults));
  for (const [field, column] of Object.entries(table.columns)) {
    const { at, dictionary, nested } = column;
    const values = nested === undefined ? (column.values ?? []) : fromColumns(nested);
    if (at !== undefined && at.length !== values.length) throw new Error(`the column "${field}" lists ${at.length} records but ${values.length} values`);
    if (at === undefined && values.length !== table.rows) throw new Error(`the column "${field}" has ${values.length} values for ${table.rows} records`);
    for (let i = 0; i < values.length; i += 1) {
      const row = at === undefined ? i : at[i]!;
      const record = records[row];
      if (record === undefined) throw new Error(`the column "${field}" names record ${row} of ${table.rows}`);
      record[field] = dictionary === undefined ? values[i] : dictionary[values[i] as number];
    }
  }
  return records as T[];
}
