import { decodeEscapes } from '../text';

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

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;

export function schemeOf(line: string): string | null {
  const match = SCHEME.exec(line);
  return match ? (match[1] as string).toLowerCase() : null;
}

export function splitLink(link: string): LinkParts | null {
  const match = SCHEME.exec(link);
  if (!match) return null;
  const scheme = (match[1] as string).toLowerCase();
  let rest = link.slice(match[0].length);

  let fragment: string | null = null;
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) {
    fragment = rest.slice(hashAt + 1);
    rest = rest.slice(0, hashAt);
  }
  let rawQuery = '';
  const queryAt = rest.indexOf('?');
  if (queryAt >= 0) {
    rawQuery = rest.slice(queryAt + 1);
    rest = rest.slice(0, queryAt);
  }
  let userinfo: string | null = null;
  const atAt = rest.lastIndexOf('@');
  if (atAt >= 0) {
    userinfo = rest.slice(0, atAt);
    rest = rest.slice(atAt + 1);
  }
  let path = '';
  const slashAt = rest.indexOf('/');
  if (slashAt >= 0) {
    path = rest.slice(slashAt);
    rest = rest.slice(0, slashAt);
  }
  const { host, port } = splitHostPort(rest);
  return { scheme, userinfo, host, port, path, query: parseQuery(rawQuery), rawQuery, fragment };
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
  for (const [key, value] of out) if (value.includes('%')) out.set(key, decodeEscapes(value));
  return out;
}

/** `a=1&b=x%20y` → Map of lower-cased names → values as written (first occurrence wins). */
export function rawQueryValues(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === '') return out;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeEscapes(eq >= 0 ? pair.slice(0, eq) : pair)
      .trim()
      .toLowerCase();
    if (key === '' || out.has(key)) continue;
    out.set(key, eq >= 0 ? pair.slice(eq + 1) : '');
  }
  return out;
}

/** The first non-empty value among several parameter names (already lower-cased). */
export function param(query: Map<string, string>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = query.get(name);
    if (value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/**
 * The spellings panels use for one parameter name: `allow_insecure` is also written
 * `allow-insecure` and `allowInsecure` (lower-cased here to `allowinsecure`), so a reader names
 * the parameter once and hears every spelling.
 */
export function spellings(...names: string[]): string[] {
  return names.flatMap((name) => [...new Set([name, name.replaceAll('_', '-'), name.replaceAll('_', '')])]);
}
