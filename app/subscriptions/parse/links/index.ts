import type { ParsedServer } from '../../../../shared/domain/server';
import type { RejectedEntry } from '../../../../shared/domain/subscription';
import { maskedExcerpt, splitLines } from '../text';
import type { ParseNote } from '../types';
import { EntryError, placeholderReason, reject } from '../validate';
import type { Note } from './common';
import { parseHttpProxy, parseSocks, parseWireguard } from './plain-proxies';
import { parseHysteria2, parseTuic } from './quic';
import { parseShadowsocks } from './shadowsocks';
import { parseAnytls, parseHysteria, parseNaive } from './sing-box-schemes';
import { isInfoLine, isUnreadStatusLine, type SubscriptionInfo, subscriptionInfoOf } from '../info-lines';
import { ipv6Declaration, unreadIpv6Note } from '../ipv6';
import { schemeOf, splitLink } from './split';
import { parseVmess } from './vmess';
import { parseTrojan, parseVless } from './vless-trojan';

type LinkParser = (line: string, note: Note) => ParsedServer;

const PARSERS: Record<string, LinkParser> = {
  vmess: parseVmess,
  vless: parseVless,
  trojan: parseTrojan,
  ss: parseShadowsocks,
  hysteria2: parseHysteria2,
  hy2: parseHysteria2,
  tuic: parseTuic,
  wireguard: parseWireguard,
  wg: parseWireguard,
  socks: parseSocks,
  socks5: parseSocks,
  http: parseHttpProxy,
  https: parseHttpProxy,
  hysteria: parseHysteria,
  hy: parseHysteria,
  anytls: parseAnytls,
  'naive+https': parseNaive,
  'naive+quic': parseNaive,
};

/**
 * PARSERS as a Map, looked up first: a Map finds a scheme sliced from a link by its hash, where
 * indexing the object with it had the engine look the text up among its interned strings, for
 * every link. A scheme it lacks still goes through PARSERS, which answers as it always did.
 */
const PARSER_OF = new Map(Object.entries(PARSERS));

const KNOWN_UNSUPPORTED: Record<string, string> = {
  ssr: 'ShadowsocksR is not supported by the v2ray family of cores',
  socks4: 'SOCKS4 proxies are not supported; only SOCKS5',
  socks4a: 'SOCKS4 proxies are not supported; only SOCKS5',
  snell: 'Snell is not supported by the v2ray family of cores',
};

/** One share link → a server, or an EntryError with the reason. */
export function parseLink(line: string, note: Note): ParsedServer {
  const scheme = schemeOf(line);
  if (!scheme) return reject('not a share link (expected scheme://…)');
  const parser = PARSER_OF.get(scheme) ?? PARSERS[scheme];
  if (!parser) {
    const why = KNOWN_UNSUPPORTED[scheme];
    return reject(`unknown scheme ${scheme.slice(0, 20)}://${why ? ` (${why})` : ''}`);
  }
  const server = parser(line, note);
  const placeholder = placeholderReason(server);
  if (placeholder) return reject(placeholder);
  return withDeclaredIpv6(server, line, note);
}

/**
 * `ipv6=1` / `ipv6=0` in a link's query declares whether the server carries IPv6 (spec/monitor.md,
 * ipv6_declared). Read here once for every scheme; a vmess JSON payload carries it as a field
 * (read by the vmess parser), which a query, when present, overrides.
 */
function withDeclaredIpv6(server: ParsedServer, line: string, note: Note): ParsedServer {
  if (!mentionsIpv6(line)) return server; // most links say nothing: skip the second split
  const raw = splitLink(line)?.query.get('ipv6');
  if (raw === undefined) return server;
  const declared = ipv6Declaration(raw);
  if (declared === null) {
    note(unreadIpv6Note(raw));
    return server;
  }
  return { ...server, ipv6: declared };
}

/**
 * Whether `ipv6` occurs in the line in any ASCII case, as /ipv6/i tests (which folds no other
 * character to these letters): found by indexOf of `v6`, which most links do not hold, at a
 * fraction of the case-insensitive regex's cost over every link of a list.
 */
function mentionsIpv6(line: string): boolean {
  for (const v6 of IPV6_ENDINGS) {
    for (let at = line.indexOf(v6, 2); at >= 0; at = line.indexOf(v6, at + 1)) {
      if ((line.charCodeAt(at - 1) | 32) === 112 /* p */ && (line.charCodeAt(at - 2) | 32) === 105 /* i */) return true;
    }
  }
  return false;
}

const IPV6_ENDINGS = ['v6', 'V6'];

/** Whether a line of a list looks like it was meant to be a share link. */
export function looksLikeLink(line: string): boolean {
  return schemeOf(line) !== null;
}

/**
 * A list of share links, one a line; blank lines and `#` / `//` comments are skipped, and the
 * provider's `STATUS=` / `REMARKS=` lines are read as subscription info (info-lines.ts), not
 * entries. Line numbers are 1-based lines of the (decoded) text.
 */
export function parseLinkList(text: string): { servers: ParsedServer[]; rejected: RejectedEntry[]; notes: ParseNote[]; info?: SubscriptionInfo } {
  const entries: LinkEntry[] = [];
  const infoLines: string[] = [];
  const infoNotes: ParseNote[] = [];
  splitLines(text).forEach((raw, i) => {
    const link = raw.trim();
    if (isInfoLine(link)) {
      infoLines.push(link);
      if (isUnreadStatusLine(link)) infoNotes.push({ line: i + 1, note: "the provider's STATUS line shows no usage or expiry this app can read; it was skipped", excerpt: maskedExcerpt(link) });
    } else if (link !== '' && !link.startsWith('#') && !link.startsWith('//')) entries.push({ line: i + 1, link });
  });
  const parsed = parseLinkEntries(entries);
  if (infoLines.length === 0) return parsed;
  const notes = [...parsed.notes, ...infoNotes].sort((a, b) => a.line - b.line);
  return { ...parsed, notes, info: subscriptionInfoOf(infoLines) };
}

/** Proxy schemes worth finding inside prose (web addresses are left alone: prose is full of them). */
const EMBEDDED_LINK = /(?<![\w+./:=-])(?:vmess|vless|trojan|ss|ssr|hysteria2|hy2|hysteria|hy|tuic|wireguard|wg|socks5?|anytls|naive\+https|naive\+quic):\/\/[^\s<>"'`]+/gi;

/**
 * Share links inside text, as users paste them from a channel post ("Server 1: vless://…",
 * "👉 trojan://… @channel"): each link runs to the next white space. Null when there is none.
 */
export function parseLinksInText(text: string): { servers: ParsedServer[]; rejected: RejectedEntry[]; notes: ParseNote[] } | null {
  const entries: LinkEntry[] = [];
  splitLines(text).forEach((line, i) => {
    for (const match of line.matchAll(EMBEDDED_LINK)) entries.push({ line: i + 1, link: match[0] });
  });
  return entries.length > 0 ? parseLinkEntries(entries) : null;
}

interface LinkEntry {
  /** 1-based line of the text the link was found on. */
  line: number;
  link: string;
}

function parseLinkEntries(entries: readonly LinkEntry[]): { servers: ParsedServer[]; rejected: RejectedEntry[]; notes: ParseNote[] } {
  const servers: ParsedServer[] = [];
  const rejected: RejectedEntry[] = [];
  const notes: ParseNote[] = [];
  // One note function for the whole list, reading the entry being parsed (parsers note while they
  // run, never later), instead of a closure per link.
  let lineNumber = 0;
  let link = '';
  const noteOfEntry: Note = (note) => {
    notes.push({ line: lineNumber, note, excerpt: maskedExcerpt(link) });
  };
  for (const entry of entries) {
    lineNumber = entry.line;
    link = entry.link;
    const notesBefore = notes.length;
    try {
      servers.push(parseLink(link, noteOfEntry));
    } catch (error) {
      notes.length = notesBefore; // notes about an entry that was rejected after all
      const reason = error instanceof EntryError ? error.reason : `could not be read (${error instanceof Error ? error.message : String(error)})`;
      rejected.push({ line: lineNumber, reason, excerpt: maskedExcerpt(link) });
    }
  }
  return { servers, rejected, notes };
}
