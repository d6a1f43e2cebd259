import { decodeEscapes, isSecretKey } from '../text';

/**
 * A share link cut into its parts, raw (nothing decoded but the query values). Written by hand
 * rather than with `URL` because share links bend the rules: unescaped `?` inside parameter
 * values, `@` inside passwords, `+` that must stay `+` (base64 keys), IPv6 without brackets, and
 * non-special schemes whose host `URL` would not normalise.
 */
export interface LinkParts {
  scheme: string;
  /** Text before the last `@` of the authority, or null when there is none. */
  userinfo: string | null;
  /** Host as written, brackets removed. */
  host: string;
  port: string | null;
  path: string;
  /** Lower-cased parameter names → percent-decoded values (first occurrence wins). */
  query: Map<string, string>;
  /** The query as written, for the few values read as form values (see parseQuery). */
  rawQuery: string;
  /** Raw fragment (the name), or null. */
  fragment: string | null;
}

/**
 * Where a link's `scheme://` ends: the index of its `:`, or -1 when the link does not start with
 * one (a letter, then letters, digits, `+`, `.` or `-`). A loop over the few characters of a
 * scheme instead of a regex: a match array for every link of a list was garbage at once.
 */
function schemeLength(link: string): number {
  if (!isAsciiLetter(link.charCodeAt(0))) return -1;
  let end = 1;
  for (; end < link.length; end++) {
    const c = link.charCodeAt(end);
    if (!isAsciiLetter(c) && !(c >= 48 && c <= 57) && c !== 43 /* + */ && c !== 46 /* . */ && c !== 45 /* - */) break;
  }
  return link.startsWith('://', end) ? end : -1;
}

function isAsciiLetter(code: number): boolean {
  const lower = code | 32;
  return lower >= 97 && lower <= 122;
}

export function schemeOf(line: string): string | null {
  const end = schemeLength(line);
  return end < 0 ? null : line.slice(0, end).toLowerCase();
}

export function splitLink(link: string): LinkParts | null {
  const schemeEnd = schemeLength(link);
  if (schemeEnd < 0) return null;
  const scheme = link.slice(0, schemeEnd).toLowerCase();
  // The parts are found by index in the link itself and sliced once each: cutting a `rest` down
  // step by step made a string per step for every link of a list.
  const start = schemeEnd + 3;
  let end = link.length;

  let fragment: string | null = null;
  const hashAt = link.indexOf('#', start);
  if (hashAt >= 0) {
    fragment = link.slice(hashAt + 1);
    end = hashAt;
  }
  let rawQuery = '';
  const queryAt = link.indexOf('?', start);
  if (queryAt >= 0 && queryAt < end) {
    rawQuery = link.slice(queryAt + 1, end);
    end = queryAt;
  }
  let userinfo: string | null = null;
  let hostStart = start;
  const atAt = end > start ? link.lastIndexOf('@', end - 1) : -1;
  if (atAt >= start) {
    userinfo = link.slice(start, atAt);
    hostStart = atAt + 1;
  }
  let path = '';
  const slashAt = link.indexOf('/', hostStart);
  if (slashAt >= 0 && slashAt < end) {
    path = link.slice(slashAt, end);
    end = slashAt;
  }
  const { host, port } = splitHostPort(link.slice(hostStart, end));
  return { scheme, userinfo, host, port, path, query: parseQuery(rawQuery), rawQuery, fragment };
}

/** What comes before the first `?` or `#` of a link's remainder (the whole text when it has neither). */
export function beforeQueryOrFragment(rest: string): string {
  const queryAt = rest.indexOf('?');
  const hashAt = rest.indexOf('#');
  const end = queryAt < 0 ? hashAt : hashAt < 0 ? queryAt : Math.min(queryAt, hashAt);
  return end < 0 ? rest : rest.slice(0, end);
}

/** `host:port`, `[v6]:port`, `host`, or a bare IPv6 with the port after its last colon. */
export function splitHostPort(text: string): { host: string; port: string | null } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return { host: text, port: null };
    const host = text.slice(1, close);
    const after = text.slice(close + 1);
    return { host, port: after.startsWith(':') ? after.slice(1) : after === '' ? null : after };
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0) return { host: text, port: null };
  return { host: text.slice(0, colon), port: text.slice(colon + 1) };
}

/**
 * `a=1&b=x%20y` → Map. A `+` is kept as `+`, although form encoders write a space so: the values
 * that matter to a connection are passwords, base64 keys (`pbk` in standard base64, `ech`),
 * paths and SIP003 plugin options, where `+` is a plus (a panel that form-encodes a password
 * writes its plus as `%2B`, and a `+` read as a space would break it). The two kinds of value
 * where a `+` means a space are read from rawQueryValues: names (`remarks`, decodeQueryName) and
 * xhttp's `extra` JSON, where a space between tokens survives only that reading.
 */
export function parseQuery(raw: string): Map<string, string> {
  // Decoded in place: replacing a value keeps the key's place and is not visited again.
  const out = rawQueryValues(raw);
  // forEach rather than for…of: no [key, value] array per parameter.
  out.forEach((value, key) => {
    if (value.includes('%')) out.set(key, decodeEscapes(value, isSecretKey(key) ? key : undefined));
  });
  return out;
}

/** `a=1&b=x%20y` → Map of lower-cased names → values as written (first occurrence wins). */
export function rawQueryValues(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === '') return out;
  // Pairs found by index rather than split('&'): only the names and values are sliced out.
  for (let start = 0; start < raw.length; ) {
    const amp = raw.indexOf('&', start);
    const pairEnd = amp < 0 ? raw.length : amp;
    if (pairEnd > start) {
      const eq = raw.indexOf('=', start);
      const keyEnd = eq >= 0 && eq < pairEnd ? eq : pairEnd;
      const key = decodeEscapes(raw.slice(start, keyEnd)).trim().toLowerCase();
      if (key !== '' && !out.has(key)) out.set(key, keyEnd < pairEnd ? raw.slice(keyEnd + 1, pairEnd) : '');
    }
    start = pairEnd + 1;
  }
  return out;
}

/**
 * The first non-empty value among up to four parameter names (already lower-cased), each value
 * trimmed once. The names are positional rather than `...names`: streamFromQuery asks for some
 * twenty parameters per link, and a rest array per call was most of the garbage a link's query
 * reading made. paramIn takes a list of names.
 */
export function param(query: Map<string, string>, first: string, second?: string, third?: string, fourth?: string): string | undefined {
  return (
    nonEmptyValue(query, first) ??
    (second === undefined ? undefined : nonEmptyValue(query, second)) ??
    (third === undefined ? undefined : nonEmptyValue(query, third)) ??
    (fourth === undefined ? undefined : nonEmptyValue(query, fourth))
  );
}

/** param for a list of names (spellings(), or more than four). */
export function paramIn(query: Map<string, string>, names: readonly string[]): string | undefined {
  for (let i = 0; i < names.length; i++) {
    const value = nonEmptyValue(query, names[i] as string);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A parameter's value trimmed, or undefined when it is absent or blank. */
function nonEmptyValue(query: Map<string, string>, name: string): string | undefined {
  const value = query.get(name);
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * The spellings panels use for one parameter name: `allow_insecure` is also written
 * `allow-insecure` and `allowInsecure` (lower-cased here to `allowinsecure`), so a reader names
 * the parameter once and hears every spelling.
 */
export function spellings(...names: string[]): string[] {
  return names.flatMap((name) => [...new Set([name, name.replaceAll('_', '-'), name.replaceAll('_', '')])]);
}
