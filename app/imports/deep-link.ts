/**
 * "Add to app" links, as panels (Marzban, 3x-ui, Remnawave, Marzneshin, Hiddify-Manager) and
 * channel bots write them for the apps people already use, read into what they would add. Pure:
 * nothing is fetched here, and a link that cannot be read says why.
 *
 * The forms, from the apps' and panels' own documentation:
 * - v2rayN / v2rayNG: `v2rayn://install-sub?url=ENC&name=NAME` (also `install-config`);
 * - Hiddify: `hiddify://import/<subscription URL or share link>#NAME`, and the older
 *   `hiddify://install-sub?url=ENC#NAME`, `hiddify://install-config[/]?url=ENC#NAME`,
 *   `hiddify://install-proxy?url=<share link>#NAME`;
 * - Clash and Clash Meta (mihomo): `clash://install-config?url=ENC&name=NAME`, `clashmeta://…`;
 * - sing-box: `sing-box://import-remote-profile?url=ENC#NAME`;
 * - this app's own: `steadfast://install-sub?url=ENC&name=NAME` and `steadfast://import/<…>`.
 */
import { type Finding, finding } from '../../shared/domain/validation';
import type { ImportRequest } from '../../shared/domain/import-request';
import { parseSubscription } from '../subscriptions/parse';
import { cleanName, maskedExcerpt } from '../subscriptions/parse/text';

/** The schemes the app registers with the OS (electron-builder.yml lists the same). */
export const DEEP_LINK_SCHEMES = ['steadfast', 'v2rayn', 'v2rayng', 'hiddify', 'clash', 'clashmeta', 'sing-box'] as const;

/** Longer than any panel's link; a longer one is refused rather than shown. */
export const MAX_DEEP_LINK_CHARS = 16_384;
const MAX_URL_CHARS = 8192;

/** The actions that carry a subscription address in `url=`. */
const SUBSCRIPTION_ACTIONS = new Set(['install-sub', 'install-config', 'import-remote-profile', 'add-sub', 'subscribe']);
const SHARE_LINK = /^(vmess|vless|trojan|ss|hysteria2|hy2|tuic|wireguard|wg|socks5?):\/\/\S+$/i;

export type DeepLink = Omit<ImportRequest, 'id' | 'receivedAt'>;

/** Whether a command-line argument is one of the registered links (how Windows and Linux hand them over). */
export function isDeepLink(arg: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(arg)?.[1]?.toLowerCase();
  return scheme !== undefined && (DEEP_LINK_SCHEMES as readonly string[]).includes(scheme);
}

const BAD_ESCAPES = finding('import-bad-escapes', {}, 'its percent-escapes are not UTF-8 text');

/** Why `text` cannot be imported: the English reason, and its topic for the window to word. */
function unreadableTarget(why: Finding, text: string) {
  return { kind: 'unreadable' as const, reason: why.text, problem: { topic: why.topic, params: why.params }, excerpt: maskedExcerpt(text) };
}

/** A link → what it would add, or why it cannot be read. Never throws. */
export function parseDeepLink(raw: string): DeepLink {
  const link = raw.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(link)?.[1]?.toLowerCase() ?? '';
  const unreadable = (why: Finding, name: string | null = null): DeepLink => ({
    source: scheme || 'link',
    name,
    target: unreadableTarget(why, link),
  });
  if (!(DEEP_LINK_SCHEMES as readonly string[]).includes(scheme)) return unreadable(finding('import-unknown-link', { link: link.slice(0, 40) }, 'not an import link this app knows'));
  if (link.length > MAX_DEEP_LINK_CHARS) return unreadable(finding('import-link-too-long', { limit: MAX_DEEP_LINK_CHARS }, `the link is longer than ${MAX_DEEP_LINK_CHARS} characters`));

  const body = link.slice(scheme.length + 3);
  const hashAt = body.indexOf('#');
  const fragment = hashAt >= 0 ? body.slice(hashAt + 1) : '';
  const beforeHash = hashAt >= 0 ? body.slice(0, hashAt) : body;
  const queryAt = beforeHash.indexOf('?');
  const action = (queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash).replace(/\/+$/, '').toLowerCase();

  if (action.startsWith('import/') || (scheme === 'hiddify' && action === 'import')) {
    // `import/<what>`: the rest of the link is the subscription address or share link itself,
    // written as is (its own `#` is the name) or percent-encoded.
    const rest = body.slice(body.indexOf('/') + 1);
    const whole = /^[a-z0-9+.-]+%3A/i.test(rest) ? decodeOrNull(rest) : rest;
    const cut = whole === null ? -1 : whole.indexOf('#');
    const name = whole === null ? undefined : nameFrom(cut >= 0 ? whole.slice(cut + 1) : '');
    if (whole === null || name === undefined) return unreadable(BAD_ESCAPES);
    // A share link keeps its own name; a subscription address is fetched without the fragment.
    return targetFor(scheme, SHARE_LINK.test(whole.trim()) ? whole : cut >= 0 ? whole.slice(0, cut) : whole, name, unreadable);
  }

  const query = splitQuery(queryAt >= 0 ? beforeHash.slice(queryAt + 1) : '');
  if (query === null) return unreadable(BAD_ESCAPES);
  const name = nameFrom(query.get('name') ?? query.get('remarks') ?? fragment);
  if (name === undefined) return unreadable(BAD_ESCAPES);
  const url = query.get('url');
  if (SUBSCRIPTION_ACTIONS.has(action) || (scheme === 'hiddify' && action === 'install-proxy')) {
    if (!url) return unreadable(finding('import-link-without-url', { link: `${scheme}://${action}` }, `${scheme}://${action} without a url= to add`), name);
    return targetFor(scheme, url, name, unreadable);
  }
  return unreadable(finding('import-unknown-link', { link: `${scheme}://${action.slice(0, 40)}` }, `"${scheme}://${action.slice(0, 40)}" is not an import link this app knows`), name);
}

function targetFor(source: string, what: string, name: string | null, unreadable: (why: Finding, name: string | null) => DeepLink): DeepLink {
  const value = what.trim();
  if (SHARE_LINK.test(value)) return { source, name, target: { kind: 'links', text: value, excerpt: maskedExcerpt(value) } };
  if (value.length > MAX_URL_CHARS) return unreadable(finding('import-address-too-long', { limit: MAX_URL_CHARS }, `the address is longer than ${MAX_URL_CHARS} characters`), name);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return unreadable(finding('import-neither-address-nor-link', {}, 'what it would add is neither a subscription address nor a share link'), name);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return unreadable(finding('import-not-http', { protocol: url.protocol.slice(0, 20) }, `a subscription is fetched over http(s), not ${url.protocol.slice(0, 20)}`), name);
  if (url.username || url.password) return unreadable(finding('import-address-with-password', {}, 'the address carries a user name and password, which a subscription link never needs'), name);
  return { source, name, target: { kind: 'subscription', url: value } };
}

/**
 * `url=…&name=…`. Panels percent-encode the address, but some write it raw, with its own `&` and
 * `=` inside: a raw `http(s)://` value runs to the end of the query, or up to a trailing `&name=`.
 * Null when an escape is not UTF-8.
 */
function splitQuery(text: string): Map<string, string> | null {
  const out = new Map<string, string>();
  const raw = /(?:^|&)url=(https?:\/\/.*)$/i.exec(text);
  let rest = text;
  if (raw?.[1]) {
    const value = raw[1];
    const nameAt = value.search(/&(name|remarks)=[^&]*$/i);
    out.set('url', nameAt >= 0 ? value.slice(0, nameAt) : value);
    rest = text.slice(0, raw.index) + (nameAt >= 0 ? value.slice(nameAt) : '');
  }
  for (const pair of rest.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = (eq >= 0 ? pair.slice(0, eq) : pair).toLowerCase();
    const value = decodeOrNull((eq >= 0 ? pair.slice(eq + 1) : '').replaceAll('+', key === 'url' ? '+' : ' '));
    if (value === null) return null;
    if (!out.has(key)) out.set(key, value);
  }
  return out;
}

/** A proposed name, decoded and cleaned; null when there is none, undefined when it does not decode. */
function nameFrom(raw: string): string | null | undefined {
  if (!raw) return null;
  const decoded = decodeOrNull(raw);
  if (decoded === null) return undefined;
  return cleanName(decoded) || null;
}

function decodeOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * What pasted text, a QR code or other found text would add, whatever the user was given: an
 * import link as above, a subscription address, share links one a line, or a whole subscription
 * body (base64, Xray / sing-box JSON, Clash YAML, links among other text), read once here so the
 * confirmation can say how many servers it holds. `source` says where it was found ("qr",
 * "paste"). Never throws; text that holds none of these says why.
 */
export function readImportText(text: string, source: string): DeepLink {
  const trimmed = text.trim();
  const unreadable = (why: Finding, name: string | null = null): DeepLink => ({ source, name, target: unreadableTarget(why, trimmed) });
  if (trimmed === '') return unreadable(finding('import-empty', {}, 'there is nothing in it'));
  if (isDeepLink(trimmed) && !/\s/.test(trimmed)) return { ...parseDeepLink(trimmed), source };
  const lines = trimmed.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  if (lines.every((line) => SHARE_LINK.test(line))) {
    return { source, name: null, target: { kind: 'links', text: lines.join('\n'), excerpt: maskedExcerpt(lines[0] ?? '') } };
  }
  if (/^https?:\/\//i.test(trimmed) && lines.length === 1) return targetFor(source, trimmed, null, unreadable);
  return bodyTarget(trimmed, source, unreadable);
}

/** A subscription body as a provider serves it, or why it is not one. */
function bodyTarget(text: string, source: string, unreadable: (why: Finding) => DeepLink): DeepLink {
  const parsed = parseSubscription(text);
  if (parsed.servers.length === 0) {
    const first = parsed.rejected[0]?.reason;
    return unreadable(
      parsed.format === 'unknown' || first === undefined
        ? finding('import-nothing-recognised', {}, 'it holds neither a share link, a subscription address, an import link nor a subscription’s contents')
        : finding('import-no-usable-server', { detail: first }, `it holds no usable server (${first})`),
    );
  }
  return {
    source,
    name: parsed.info?.remarks ? cleanName(parsed.info.remarks) || null : null,
    target: { kind: 'body', text, format: parsed.format, servers: parsed.servers.length, excerpt: maskedExcerpt(text) },
  };
}
