import { parseDocument, visit } from 'yaml';
import { resolveChains } from './chains';
import { parseClashDocument } from './clash';
import { isInfoLine } from './info-lines';
import { parseLinkList, parseLinksInText } from './links';
import { parseSingBoxConfigs } from './sing-box';
import { asArray, asObject, bytesToText, decodeBase64Text, maskedExcerpt, splitLines, str } from './text';
import type { FormatOutput, ParseResult } from './types';
import { parseXrayConfigs } from './xray';
import { yamlNestingBound } from './yaml-depth';

export type { SubscriptionInfo } from './info-lines';
export type { ParseNote, ParseResult } from './types';

/**
 * Reads a subscription body in any format users are given and returns every server it could
 * use, every entry it could not (1-based line or item number, a reason, a masked excerpt) and
 * notes about settings it ignored. Never throws: a body that is not a subscription at all yields
 * no servers and one rejection that says so.
 *
 * Formats, detected in this order: an empty body ("empty"); JSON — Xray / v2ray configs
 * ("xray-json") or sing-box configs ("sing-box-json"), one config or an array of them; a list of
 * share links, one a line ("links"); Clash / Mihomo YAML with `proxies:` ("clash-yaml"); base64
 * of any of these ("base64" for links, else "base64/<inner>"), standard or URL-safe, padded or
 * not, line-wrapped or not; last, share links inside other text ("links-in-text"), as users
 * paste them from a channel post.
 */
export function parseSubscription(body: string | Uint8Array): ParseResult {
  try {
    const { text, validUtf8 } = bytesToText(body);
    if (text.trim() === '') return { format: 'empty', servers: [], rejected: [], notes: [] };
    return parseText(text, true) ?? notASubscription(text, validUtf8);
  } catch (error) {
    // A parser bug must not take an update down with it: report it as what it is.
    const message = error instanceof Error ? error.message : String(error);
    return { format: 'unknown', servers: [], rejected: [{ line: 1, reason: `the body could not be read (internal error: ${message})`, excerpt: '' }], notes: [] };
  }
}

const LINK_AT = /[ \t]*[a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\//y;
const CLASH_PROXIES = /^(?:proxies|Proxy)[ \t]*:/m;

/** Whether some line starts with `scheme://` (a line-by-line scan: bodies can be megabytes of base64). */
function hasLinkLine(text: string): boolean {
  if (!text.includes('://')) return false;
  for (let start = 0; start < text.length; ) {
    LINK_AT.lastIndex = start;
    if (LINK_AT.test(text)) return true;
    const next = text.indexOf('\n', start);
    if (next < 0) return false;
    start = next + 1;
  }
  return false;
}

/**
 * Whether every non-blank line is a `#` or `//` comment or a provider's info line: an empty list,
 * as some panels write it (an expired account often gets its STATUS line and no servers).
 */
function onlyCommentsOrInfo(text: string): boolean {
  const first = text.trimStart();
  if (!first.startsWith('#') && !first.startsWith('//') && !isInfoLine(first)) return false;
  return splitLines(text).every((line) => {
    const t = line.trim();
    return t === '' || t.startsWith('#') || t.startsWith('//') || isInfoLine(t);
  });
}

function parseText(text: string, outermost: boolean): ParseResult | null {
  const trimmed = text.trim();
  const first = trimmed[0];
  if (first === '{' || first === '[') {
    const json = parseJsonLoosely(trimmed);
    if (json.ok) return parseJsonDocument(json.value, trimmed);
    if (!hasLinkLine(text)) return wholeBodyRejected('unknown', `the body starts like JSON but is not valid JSON (${json.error})`, trimmed);
  }
  if (first === '<') return null;
  if (hasLinkLine(text)) return finish('links', parseLinkList(text));
  if (onlyCommentsOrInfo(text)) return finish('links', parseLinkList(text));
  // The words first (a native search), then the line-anchored regex: a base64 body is megabytes.
  // Before the words, the colon the regex needs: base64 has none, and one search for a character
  // takes a fraction of what the two for the words took over a body (0.05 ms against 2.5 ms for
  // the bench's 10,000 links, whose base64 is full of their letters).
  if (text.includes(':') && (text.includes('proxies') || text.includes('Proxy')) && CLASH_PROXIES.test(text)) return parseClashText(text);
  if (!outermost) return null;
  const decoded = decodeBase64Text(trimmed) ?? decodeBase64PerLine(trimmed);
  const inner = decoded === null ? null : parseText(decoded, false);
  if (inner && inner.format !== 'unknown') return { ...inner, format: inner.format === 'links' ? 'base64' : `base64/${inner.format}` };
  // Last: links inside prose, as pasted from a channel post.
  const embedded = parseLinksInText(text);
  return embedded ? finish('links-in-text', embedded) : null;
}

/** Some providers base64 each line separately (each with its own padding). */
function decodeBase64PerLine(text: string): string | null {
  const lines = splitLines(text).filter((l) => l.trim() !== '');
  if (lines.length < 2) return null;
  const decoded: string[] = [];
  for (const line of lines) {
    const d = decodeBase64Text(line.trim());
    if (d === null) return null;
    decoded.push(d.trim());
  }
  return decoded.join('\n');
}

function parseJsonLoosely(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    // Xray accepts comments and trailing commas in its JSON; providers ship them.
    try {
      return { ok: true, value: JSON.parse(stripJsonComments(text)) };
    } catch {
      return { ok: false, error: error instanceof Error ? error.message.slice(0, 120) : 'unreadable' };
    }
  }
}

/** Removes // and /* *\/ comments and trailing commas outside strings. */
function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** `text` is the document as served: the excerpt of a refusal (re-serialising a deeply nested value overflows the stack). */
function parseJsonDocument(value: unknown, text: string): ParseResult {
  let configs: Record<string, unknown>[];
  let isArray = false;
  const hasOutbounds = (v: unknown) => Array.isArray(asObject(v).outbounds) || Array.isArray(asObject(v).endpoints);
  const isOutbound = (v: unknown) => typeof asObject(v).protocol === 'string' || typeof asObject(v).type === 'string';
  const sip008 = hasOutbounds(value) ? null : sip008Outbounds(value);
  if (sip008) return finish('sip008-json', parseSingBoxConfigs([{ outbounds: sip008 }], false));
  if (Array.isArray(value)) {
    if (value.some(hasOutbounds)) {
      configs = value.map(asObject);
      isArray = true;
    } else if (value.some(isOutbound)) configs = [{ outbounds: value }];
    else return wholeBodyRejected('unknown', 'JSON without outbounds: not an Xray or sing-box config', text);
  } else if (hasOutbounds(value)) configs = [asObject(value)];
  else if (isOutbound(value)) configs = [{ outbounds: [value] }];
  else return wholeBodyRejected('unknown', 'JSON without outbounds: not an Xray or sing-box config', text);

  const isXray = configs.some((c) => asArray(c.outbounds).some((o) => typeof asObject(o).protocol === 'string'));
  return isXray ? finish('xray-json', parseXrayConfigs(configs, isArray)) : finish('sing-box-json', parseSingBoxConfigs(configs, isArray));
}

/**
 * SIP008, Shadowsocks' own JSON subscription: `{version, servers: [{server, server_port, method,
 * password, plugin, plugin_opts, remarks}]}`, or the bare list (v2rayN reads both). Its fields
 * are those of a sing-box shadowsocks outbound, the name in `remarks`; null when it is not one.
 */
function sip008Outbounds(value: unknown): Record<string, unknown>[] | null {
  const list = Array.isArray(value) ? value : asObject(value).servers;
  const isServer = (v: unknown) => 'server_port' in asObject(v) && 'method' in asObject(v) && !('type' in asObject(v));
  if (!Array.isArray(list) || !list.some(isServer)) return null;
  return list.map((item) => ({ ...asObject(item), type: 'shadowsocks', tag: str(asObject(item).remarks) }));
}

/** Real Clash configs nest about five levels; the YAML library recurses per level (see yaml-depth.ts). */
const MAX_YAML_NESTING = 64;

function parseClashText(text: string): ParseResult {
  const nesting = yamlNestingBound(text);
  if (nesting > MAX_YAML_NESTING) {
    return wholeBodyRejected('clash-yaml', `the Clash YAML nests ${nesting} levels deep (at most ${MAX_YAML_NESTING} are read; a real config nests a few)`, text);
  }
  let doc: unknown;
  try {
    doc = readClashYaml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]?.slice(0, 120) : 'unreadable';
    return wholeBodyRejected('clash-yaml', `the Clash YAML does not parse (${message})`, text);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return wholeBodyRejected('clash-yaml', 'the Clash YAML is not a mapping with proxies', text);
  }
  return finish('clash-yaml', parseClashDocument(doc as Record<string, unknown>));
}

/**
 * YAML as Mihomo reads it: `<<: *anchor` merges a shared block (proxies written as
 * `<<: *common`), and a plain value that looks like a number but is not written as one is kept
 * as written. Mihomo decodes into typed fields, so a REALITY short-id `01234567` or `5e123456`
 * and a password `00123456` stay text; read as numbers they became 1234567, Infinity and 123456.
 */
function readClashYaml(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: false, merge: true, prettyErrors: false });
  if (doc.errors.length > 0) throw doc.errors[0];
  visit(doc, {
    Scalar(_key, node) {
      const isNumber = typeof node.value === 'number' || typeof node.value === 'bigint';
      if (isNumber && node.type === 'PLAIN' && node.source !== undefined && node.source !== String(node.value)) node.value = node.source;
    },
  });
  return doc.toJS({ maxAliasCount: 1000 });
}

function finish(format: string, output: FormatOutput | Omit<ParseResult, 'format'>): ParseResult {
  if (!('scopes' in output)) return { format, ...output };
  const chained = resolveChains(output.scopes);
  return {
    format,
    servers: chained.servers,
    rejected: [...output.rejected, ...chained.rejected].sort((a, b) => a.line - b.line),
    notes: [...output.notes, ...chained.notes].sort((a, b) => a.line - b.line),
  };
}

function wholeBodyRejected(format: string, reason: string, text: string): ParseResult {
  return { format, servers: [], rejected: [{ line: 1, reason, excerpt: maskedExcerpt(text.slice(0, 300)) }], notes: [] };
}

function notASubscription(text: string, validUtf8: boolean): ParseResult {
  const trimmed = text.trim();
  const reason = !validUtf8
    ? 'the body is binary data, not a subscription'
    : trimmed.startsWith('<')
      ? 'the body is an HTML or XML page, not a subscription (often a provider’s error or login page)'
      : 'the body is not a subscription: no share links, base64 list, Xray / sing-box JSON or Clash YAML found';
  return wholeBodyRejected('unknown', reason, validUtf8 ? trimmed : '');
}
