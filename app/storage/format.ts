/**
 * The format of a stored document: its current version and how each older version becomes the
 * next. A file written by an older release is read through the chain instead of being set aside
 * as unreadable; a file written by a newer release is set aside (never deleted), since this one
 * cannot know what its fields mean.
 *
 * A migration is a pure function of the document as that version wrote it. `migrations[n]` turns
 * a version `n - 1` document into a version `n` one; a document without a `version` field is
 * version 0 (the files of the first releases).
 */
export type Migration = (document: Record<string, unknown>) => Record<string, unknown>;

export interface FileFormat {
  /** The version this release writes. */
  version: number;
  /** `migrations[n]`: version n-1 → n, for every n up to `version` a file may still be at. */
  migrations: Readonly<Record<number, Migration>>;
  /** The version of a document that may say it elsewhere than `version` (files of an earlier writer). */
  versionOf?: (document: Record<string, unknown>) => number;
}

/** Files that have carried `version: 1` from the start: nothing older to read. */
export const FIRST_FORMAT: FileFormat = { version: 1, migrations: {} };

/**
 * Files the first releases wrote without a version: their fields are version 1's, so the
 * migration only adds the number (the next save writes it).
 */
export const FIRST_FORMAT_FROM_UNVERSIONED: FileFormat = { version: 1, migrations: { 1: (unversioned) => unversioned } };

/** The version a stored document says it is (0 when it says nothing). */
export function versionOf(document: Record<string, unknown>): number {
  return typeof document.version === 'number' && Number.isInteger(document.version) && document.version >= 0 ? document.version : 0;
}

export type Upgraded = { ok: true; document: unknown; from: number } | { ok: false; reason: string };

/**
 * Brings a parsed document up to `format.version`. Only objects carry a version; any other JSON
 * value (a `null` meaning "nothing saved") is left for the schema to judge.
 */
export function upgrade(data: unknown, format: FileFormat): Upgraded {
  if (!isRecord(data)) return { ok: true, document: data, from: format.version };
  const from = (format.versionOf ?? versionOf)(data);
  if (from > format.version) {
    return { ok: false, reason: `written by a newer version of the app (format ${from}; this one reads up to ${format.version})` };
  }
  let document: Record<string, unknown> = data;
  for (let next = from + 1; next <= format.version; next++) {
    const migration = format.migrations[next];
    if (!migration) return { ok: false, reason: `format ${from} is too old to read (no way from ${next - 1} to ${next})` };
    try {
      document = { ...migration(document), version: next };
    } catch (error) {
      return { ok: false, reason: `could not bring it from format ${next - 1} to ${next} (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  return { ok: true, document: { ...document, version: format.version }, from };
}

/** The document as it is written: a plain object carries the format's version. */
export function stamp(value: unknown, format: FileFormat): unknown {
  if (!isRecord(value)) return value;
  const { version: _written, ...fields } = value;
  return { version: format.version, ...fields };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
