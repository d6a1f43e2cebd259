/**
 * Text helpers every subscription format needs: percent-decoding, tolerant base64, and the
 * credential-masked excerpts rejected entries carry.
 */

import { isAscii } from 'node:buffer';
import { reject } from './validate';

const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
const UTF8_LOOSE = new TextDecoder('utf-8');

/**
 * Percent-decodes without ever failing: a broken `%` sequence (a lone `%`, `%zz`, a cut-off
 * multi-byte character) keeps its raw text while the valid sequences around it are decoded. For
 * provider headers, where a readable title is better than none; entries use decodeEscapes.
 */
export function decodePercent(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(PERCENT_RUN, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/**
 * Percent-decodes a part of an entry. A `%` that starts no escape ("50% off", `%zz`) is kept as
 * typed, but escapes whose bytes are not UTF-8 text (`%FF`, a character cut in half) are an
 * error: kept raw they would become a password or a host the server never had. The reason quotes
 * the escapes, unless `secret` names what they belong to (user info, a password): its bytes are
 * then not shown, only its name.
 */
export function decodeEscapes(text: string, secret?: string): string {
  if (!text.includes('%')) return text;
  const whole = decodedAtOnce(text);
  if (whole !== null) return whole;
  return text.replace(PERCENT_RUN, (run) => {
    try {
      return UTF8_STRICT.decode(Buffer.from(run.replaceAll('%', ''), 'hex'));
    } catch {
      return reject(secret === undefined ? `the percent-escapes "${run.slice(0, 24)}" are not UTF-8 text` : `the percent-escapes in the ${secret} are not UTF-8 text`);
    }
  });
}

const UTF8_LENIENT = new TextDecoder('utf-8');

/**
 * Percent-decodes a server's name. A name is only shown, never sent to a server, so escapes whose
 * bytes are not UTF-8 text (a panel cutting a name mid-character) become U+FFFD, as a browser
 * shows them, and the server is kept: refusing it for its label would lose a working server.
 */
export function decodeNameEscapes(text: string): string {
  if (!text.includes('%')) return text;
  const whole = decodedAtOnce(text);
  if (whole !== null) return whole;
  return text.replace(PERCENT_RUN, (run) => UTF8_LENIENT.decode(Buffer.from(run.replaceAll('%', ''), 'hex')));
}

/**
 * The common case in one native call: when every `%` starts an escape and the escapes are UTF-8
 * text, decodeURIComponent gives what decoding run by run gives (it refuses lone surrogates,
 * overlong forms and cut characters just as the strict decoder does). Null otherwise, and when
 * the result holds a U+FEFF: the run-by-run decoders drop a BOM at the start of a run.
 */
function decodedAtOnce(text: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    return null;
  }
  return decoded.includes('\uFEFF') ? null : decoded;
}

const BASE64_BODY = /^[A-Za-z0-9+/_-]*={0,3}$/;

/**
 * Decodes standard or URL-safe base64, with or without padding, ignoring whitespace and line
 * wrapping. Returns null unless the input is base64 of valid UTF-8 text (no control characters
 * but tab and line breaks), so binary noise is never mistaken for a list.
 */
export function decodeBase64Text(input: string): string | null {
  const binary = atobText(input);
  const bytes = binary === null ? generalBase64Bytes(input) : Buffer.from(binary, 'latin1');
  if (!bytes) return null;
  let text: string;
  if (binary !== null && isAscii(bytes)) {
    // ASCII is its own UTF-8: atob's text is the decoded text, with no second decoding pass.
    text = binary;
  } else {
    try {
      text = UTF8_STRICT.decode(bytes);
    } catch {
      return null;
    }
  }
  // Binary that happens to be valid UTF-8 shows control characters early; the start is enough.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text.length > 65536 ? text.slice(0, 65536) : text)) return null;
  return text;
}

/** Lines split at CRLF, LF or a lone CR (old Mac files), without a regex over the whole text. */
export function splitLines(text: string): string[] {
  if (!text.includes('\r')) return text.split('\n');
  if (!text.includes('\n')) return text.split('\r');
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.endsWith('\r')) lines[i] = line.slice(0, -1);
  }
  // A stray lone CR inside a CRLF text still ends a line.
  return lines.some((l) => l.includes('\r')) ? lines.flatMap((l) => l.split('\r')) : lines;
}

/** Decodes base64 (either alphabet, padding optional, whitespace ignored) to bytes; null if not base64. */
export function decodeBase64Bytes(input: string): Buffer | null {
  const binary = atobText(input);
  return binary === null ? generalBase64Bytes(input) : Buffer.from(binary, 'latin1');
}

/** decodeBase64Bytes for what atobText leaves to it. */
function generalBase64Bytes(input: string): Buffer | null {
  const scan = scanBase64(input);
  if (scan !== null) {
    // Buffer's base64 reader skips the line breaks itself: no compacted copy of a long body.
    if (scan.symbols === 0) return scan.padding === 0 ? null : Buffer.alloc(0);
    if (scan.symbols % 4 === 1) return null;
    return Buffer.from(scan.end === input.length ? input : input.slice(0, scan.end), 'base64');
  }
  const compact = /\s/.test(input) ? input.replace(/\s+/g, '') : input;
  if (compact.length === 0 || !BASE64_BODY.test(compact)) return null;
  let end = compact.length;
  while (end > 0 && compact.charCodeAt(end - 1) === 61 /* = */) end--;
  const body = end === compact.length ? compact : compact.slice(0, end);
  if (body.length % 4 === 1) return null;
  return Buffer.from(body, 'base64');
}

/**
 * The usual base64, decoded in one native call: atob (forgiving-base64) reads the standard
 * alphabet with ASCII blanks anywhere and the padding left off or canonical, and refuses anything
 * else. All it accepts, scanBase64 accepts too and Buffer decodes to the same bytes, which atob
 * gives as one character per byte; the regex, the count of blanks and Buffer's decoding it saves
 * were most of the time a wrapped body took. Null for what it refuses or for no bytes at all, left
 * to the general path; the URL-safe alphabet and \v, which it refuses, are not even tried (a
 * refusal is a thrown exception, costly per link).
 */
function atobText(input: string): string | null {
  if (input.includes('-') || input.includes('_') || input.includes('\v')) return null;
  let binary: string;
  try {
    binary = atob(input);
  } catch {
    return null;
  }
  return binary === '' ? null : binary;
}

/** Base64 symbols and ASCII blanks, then at most three `=` (blanks among them): a wrapped body as served. */
const BASE64_WITH_BLANKS = /^[A-Za-z0-9+/_\t\n\v\f\r -]*(?:=[\t\n\v\f\r ]*){0,3}$/;
const ASCII_BLANKS = ['\t', '\n', '\v', '\f', '\r', ' '];

/**
 * For text of base64 symbols and ASCII blanks with at most three `=` after the last symbol: how
 * many symbols and `=` it has, and where the last symbol ends, without building a compacted
 * copy (a regex and an indexOf count per blank are several times faster than a replace, or a
 * loop over char codes, over megabytes). Null for anything else (other characters, Unicode
 * blanks, `=` inside), which the general path decides.
 */
function scanBase64(input: string): { symbols: number; padding: number; end: number } | null {
  if (!BASE64_WITH_BLANKS.test(input)) return null;
  let blanks = 0;
  // Counted with indexOf, not split: a split of a wrapped body built an array of every line
  // (tens of thousands of strings, megabytes of garbage) only to read its length.
  for (const blank of ASCII_BLANKS) {
    for (let at = input.indexOf(blank); at >= 0; at = input.indexOf(blank, at + 1)) blanks++;
  }
  let end = input.length;
  let padding = 0;
  for (; end > 0; end--) {
    const code = input.charCodeAt(end - 1);
    if (code === 61 /* = */) padding++;
    else if (!ASCII_BLANKS.includes(input[end - 1] as string)) break;
  }
  return { symbols: input.length - blanks - padding, padding, end };
}

/** Bytes to text: a BOM is dropped, invalid UTF-8 becomes U+FFFD (never throws). */
export function bytesToText(body: string | Uint8Array): { text: string; validUtf8: boolean } {
  if (typeof body === 'string') return { text: body.charCodeAt(0) === 0xfeff ? body.slice(1) : body, validUtf8: true };
  try {
    return { text: UTF8_STRICT.decode(body), validUtf8: true };
  } catch {
    return { text: UTF8_LOOSE.decode(body), validUtf8: false };
  }
}

/** A display name: control characters become spaces, runs of blanks collapse, at most 200 characters. */
export function cleanName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = /[\u0000-\u001f\u007f]|\s\s/.test(name) ? name.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim() : name.trim();
  return clean.length > 200 ? `${clean.slice(0, 199)}…` : clean;
}

/** Whether a field or query parameter of this name holds a credential (masked, never quoted). */
export function isSecretKey(name: string): boolean {
  return SECRET_KEYS.has(name.toLowerCase());
}

const SECRET_KEYS = new Set(
  [
    'id',
    'uuid',
    'password',
    'pass',
    'passwd',
    'pwd',
    'psk',
    'auth',
    'auth_str',
    'auth-str',
    'token',
    'secretkey',
    'privatekey',
    'private_key',
    'private-key',
    'presharedkey',
    'pre_shared_key',
    'pre-shared-key',
    'obfs-password',
    'obfs_password',
    'obfspassword',
    'username',
    'user',
  ].map((k) => k.toLowerCase()),
);

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const LINK_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^@\s/?#]+@/gi;
const SECRET_PARAM = /([?&;](?:password|pass|pwd|psk|auth|key|secret|presharedkey|pre-shared-key|privatekey|private-key|obfs-password|obfs_password)=)[^&#\s;]*/gi;
const SECRET_JSON_FIELD =
  /("(?:id|uuid|password|pass|psk|auth|auth_str|token|secretKey|private_key|privateKey|private-key|pre_shared_key|preSharedKey|pre-shared-key|obfs-password|username|user)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
const OPAQUE_PAYLOAD = /^([a-z][a-z0-9+.-]*:\/\/)([A-Za-z0-9+/=_-]{12,})/i;
const MAX_EXCERPT = 96;

/**
 * The start of an entry as the user can be shown it: link user-info, UUIDs, password-like
 * parameters and base64 payloads (which carry credentials) are masked; at most 96 characters.
 */
export function maskedExcerpt(text: string): string {
  // eslint-disable-next-line no-control-regex
  let out = text.slice(0, 4096).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  out = out
    .replace(OPAQUE_PAYLOAD, (_m, scheme: string, payload: string) => `${scheme}<base64, ${payload.length} characters>`)
    .replace(LINK_USERINFO, '$1***@')
    .replace(UUID_ANYWHERE, '<uuid>')
    .replace(SECRET_PARAM, '$1***')
    .replace(SECRET_JSON_FIELD, '$1"***"');
  const chars = Array.from(out);
  return chars.length > MAX_EXCERPT ? `${chars.slice(0, MAX_EXCERPT - 1).join('')}…` : out;
}

/** A JSON / YAML item as a masked one-line excerpt (secret-named fields replaced first). */
export function maskedObjectExcerpt(item: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(maskSecrets(item, 0)) ?? String(item);
  } catch {
    text = String(item);
  }
  return maskedExcerpt(text);
}

function maskSecrets(value: unknown, depth: number): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 8).map((v) => maskSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    out[key] = isSecretKey(key) && v !== null && typeof v !== 'object' ? '***' : maskSecrets(v, depth + 1);
  }
  return out;
}

/** Truthy flags as share links write them: 1, true, yes, on (any case). */
export function isTruthy(value: unknown): boolean {
  if (value === true || value === 1) return true;
  if (typeof value !== 'string') return false;
  const v = value.trim().toLowerCase();
  return v === '1' || v === 'true' || v === 'yes' || v === 'on';
}

/** Splits "a, b,c" into ["a","b","c"] (an array is accepted as is); empty items dropped. */
export function splitList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter((v) => v.length > 0);
  if (typeof value !== 'string' && typeof value !== 'number') return [];
  // One array, filled as the items are found (split, map and filter made three per list).
  const text = String(value);
  const items: string[] = [];
  for (let start = 0; start <= text.length; ) {
    const comma = text.indexOf(',', start);
    const end = comma < 0 ? text.length : comma;
    const item = text.slice(start, end).trim();
    if (item.length > 0) items.push(item);
    start = end + 1;
  }
  return items;
}

/** A string field from loosely typed data (numbers become strings, everything else ''). */
export function str(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

/** A JSON / YAML value as an object ({} when it is not one). */
export function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A JSON / YAML value as an array ([] when it is not one). */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
