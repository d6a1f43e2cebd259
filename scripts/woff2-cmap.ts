/**
 * The characters a WOFF2 font file maps to a glyph (its `cmap`), read with Node's own Brotli: enough
 * to check that a bundled font holds the characters its CSS promises, without a font library.
 * WOFF2 layout: a 48-byte header, a table directory of variable-length entries, then one Brotli
 * stream holding the tables back to back (https://www.w3.org/TR/WOFF2/).
 */
import { brotliDecompressSync } from 'node:zlib';

/** The table tags WOFF2 names by index in a directory entry's flags (spec §5.1). */
const KNOWN_TAGS = ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name', 'OS/2', 'post', 'cvt ', 'fpgm', 'glyf', 'loca', 'prep', 'CFF ', 'VORG', 'EBDT', 'EBLC', 'gasp', 'hdmx', 'kern', 'LTSH', 'PCLT', 'VDMX', 'vhea', 'vmtx', 'BASE', 'GDEF', 'GPOS', 'GSUB', 'EBSC', 'JSTF', 'MATH', 'CBDT', 'CBLC', 'COLR', 'CPAL', 'SVG ', 'sbix', 'acnt', 'avar', 'bdat', 'bloc', 'bsln', 'cvar', 'fdsc', 'feat', 'fmtx', 'fvar', 'gvar', 'hsty', 'just', 'lcar', 'mort', 'morx', 'opbd', 'prop', 'trak', 'Zapf', 'Silf', 'Glat', 'Gloc', 'Feat', 'Sill'];
const HEADER_BYTES = 48;
const EXPLICIT_TAG = 63;

/** The `cmap` table of a WOFF2 file, decompressed. */
function cmapTable(file: Buffer): Buffer {
  if (file.toString('latin1', 0, 4) !== 'wOF2') throw new Error('not a WOFF2 file');
  const numTables = file.readUInt16BE(12);
  const compressedBytes = file.readUInt32BE(20);
  let at = HEADER_BYTES;
  const base128 = () => {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const byte = file[at++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('bad UIntBase128 in the WOFF2 table directory');
  };
  const tables: { tag: string; bytes: number }[] = [];
  for (let i = 0; i < numTables; i++) {
    const flags = file[at++]!;
    let tag = KNOWN_TAGS[flags & 0x3f] ?? '';
    if ((flags & 0x3f) === EXPLICIT_TAG) {
      tag = file.toString('latin1', at, at + 4);
      at += 4;
    }
    const transform = flags >> 6;
    const originalBytes = base128();
    // glyf and loca are transformed at version 0; every other table at any version but 0.
    const transformed = tag === 'glyf' || tag === 'loca' ? transform === 0 : transform !== 0;
    tables.push({ tag, bytes: transformed ? base128() : originalBytes });
  }
  const data = brotliDecompressSync(file.subarray(at, at + compressedBytes));
  let offset = 0;
  for (const table of tables) {
    if (table.tag === 'cmap') return data.subarray(offset, offset + table.bytes);
    offset += table.bytes;
  }
  throw new Error('the font has no cmap table');
}

/** Every code point the font maps to a real glyph (not .notdef), from its format 4 and 12 subtables. */
export function woff2CodePoints(file: Buffer): Set<number> {
  const cmap = cmapTable(file);
  const found = new Set<number>();
  const subtables = cmap.readUInt16BE(2);
  for (let i = 0; i < subtables; i++) {
    const at = cmap.readUInt32BE(4 + i * 8 + 4);
    const format = cmap.readUInt16BE(at);
    if (format === 12) {
      const groups = cmap.readUInt32BE(at + 12);
      for (let g = 0; g < groups; g++) {
        const start = cmap.readUInt32BE(at + 16 + g * 12);
        const end = cmap.readUInt32BE(at + 20 + g * 12);
        const glyph = cmap.readUInt32BE(at + 24 + g * 12);
        for (let c = start; c <= end; c++) if (glyph + c - start !== 0) found.add(c);
      }
    } else if (format === 4) {
      const segments = cmap.readUInt16BE(at + 6) / 2;
      const ends = at + 14;
      const starts = ends + segments * 2 + 2;
      const deltas = starts + segments * 2;
      const rangeOffsets = deltas + segments * 2;
      for (let s = 0; s < segments; s++) {
        const end = cmap.readUInt16BE(ends + s * 2);
        const start = cmap.readUInt16BE(starts + s * 2);
        const delta = cmap.readInt16BE(deltas + s * 2);
        const rangeOffset = cmap.readUInt16BE(rangeOffsets + s * 2);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          let glyph = (c + delta) & 0xffff;
          if (rangeOffset !== 0) {
            const raw = cmap.readUInt16BE(rangeOffsets + s * 2 + rangeOffset + (c - start) * 2);
            glyph = raw === 0 ? 0 : (raw + delta) & 0xffff;
          }
          if (glyph !== 0) found.add(c);
        }
      }
    }
  }
  return found;
}
