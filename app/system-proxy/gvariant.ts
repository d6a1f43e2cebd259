/**
 * Just enough of GLib's GVariant text format for proxy settings: `gsettings get` prints values in
 * it and `gsettings set` reads it. Snapshots keep the printed text as is (it is valid input for
 * `set`), so only what `isOurs` compares needs parsing.
 */

/** A GVariant string literal: single quotes, with backslash and quote escaped. */
export function gvariantString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function gvariantStringArray(values: readonly string[]): string {
  return values.length === 0 ? '@as []' : `[${values.map(gvariantString).join(', ')}]`;
}

/** Reads a printed string (`'manual'`, `"it's"`, with backslash escapes); null if the text is not one. */
export function parseGvariantString(text: string): string | null {
  const trimmed = text.trim();
  const quote = trimmed[0];
  if ((quote !== "'" && quote !== '"') || trimmed.length < 2 || trimmed[trimmed.length - 1] !== quote) return null;
  let out = '';
  for (let i = 1; i < trimmed.length - 1; i++) {
    const ch = trimmed[i]!;
    if (ch === '\\' && i + 1 < trimmed.length - 1) {
      const next = trimmed[++i]!;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Reads a printed integer (`10809`, `int32 0`); null if the text is not one. */
export function parseGvariantInt(text: string): number | null {
  const match = /^(?:u?int(?:16|32|64)\s+)?(-?\d+)$/.exec(text.trim());
  return match ? Number(match[1]) : null;
}

/** True when the text is something `gsettings get` could have printed for a simple value. */
export function looksLikeGvariant(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length < 16_384 && !/[\r\n]/.test(t);
}
