/**
 * Emoji flags in server and subscription names ("🇩🇪 Germany"). A flag emoji is a pair of
 * regional-indicator letters spelling an ISO 3166-1 code; without an emoji font it shows as two
 * boxes or letters, so the UI draws the pair as a flag image instead, named for screen readers.
 */

const FIRST = 0x1f1e6; // REGIONAL INDICATOR SYMBOL LETTER A
const PAIR = /[\u{1F1E6}-\u{1F1FF}]{2}/gu;

/** A stretch of a name: plain text, or a flag given by its upper-case country code (and the emoji as written). */
export type NamePart = { text: string } | { flag: string; emoji: string };

/** "🇩🇪 Berlin" → [{ flag: 'DE', emoji: '🇩🇪' }, { text: ' Berlin' }]. */
export function splitFlags(name: string): NamePart[] {
  const parts: NamePart[] = [];
  let last = 0;
  for (const match of name.matchAll(PAIR)) {
    if (match.index > last) parts.push({ text: name.slice(last, match.index) });
    const flag = [...match[0]].map((c) => String.fromCharCode((c.codePointAt(0) ?? FIRST) - FIRST + 65)).join('');
    parts.push({ flag, emoji: match[0] });
    last = match.index + match[0].length;
  }
  if (last < name.length || parts.length === 0) parts.push({ text: name.slice(last) });
  return parts;
}

/** Whether a name carries any flag emoji (most do not: the common case stays plain text). */
export function hasFlags(name: string): boolean {
  return /[\u{1F1E6}-\u{1F1FF}]/u.test(name);
}
