/**
 * The checks every entry passes, whatever its format. They reject what is obviously broken (a
 * port out of range, an empty host, a UUID cut in half) and accept what a core could still run,
 * so a provider's slightly odd list loses as little as possible.
 */

/** Why one entry was rejected; thrown inside a format parser and caught per entry. */
export class EntryError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EntryError';
  }
}

export function reject(reason: string): never {
  throw new EntryError(reason);
}

/** A port from a link, JSON or YAML (number or numeric string): 1–65535. */
export function checkPort(label: string, raw: unknown, fallback?: number): number {
  let text: string;
  if (typeof raw === 'number') text = String(raw);
  else if (typeof raw === 'string') text = raw.trim();
  else text = '';
  if (text === '') {
    if (fallback !== undefined) return fallback;
    return reject(`${label}: missing port`);
  }
  if (!/^\d+$/.test(text)) return reject(`${label}: port "${text.slice(0, 20)}" is not a number`);
  const port = Number(text);
  if (port < 1 || port > 65535) return reject(`${label}: port ${text.length > 12 ? `${text.slice(0, 12)}…` : text} out of range (1–65535)`);
  return port;
}

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * A host that is not one, as a reason may quote it: at most 40 characters, with what a broken
 * link can put there of its credential masked first (the user info before an `@`, a UUID), so
 * neither is shown in part or whole.
 */
export function shownHost(host: string): string {
  const at = host.lastIndexOf('@');
  const masked = (at >= 0 ? `***${host.slice(at)}` : host).replace(UUID_ANYWHERE, '<uuid>');
  return Array.from(masked).slice(0, 40).join('');
}

// eslint-disable-next-line no-control-regex
const BAD_HOST_CHARS = /[\s/?#@[\]<>"'\\{}|^`\u0000-\u001f\u007f]/;

/**
 * A host name or IP address: brackets around IPv6 are removed (the app stores it bare),
 * letters are lower-cased (host names are case-insensitive, and identity compares them).
 */
export function checkHost(label: string, raw: unknown): string {
  let host = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === '') return reject(`${label}: missing server address`);
  if (BAD_HOST_CHARS.test(host)) return reject(`${label}: "${shownHost(host)}" is not a host name or IP address`);
  if (host.includes(':') && !/^[0-9a-fA-F:.]+(%[\w.-]+)?$/.test(host)) {
    return reject(`${label}: "${shownHost(host)}" is not a host name or IP address`);
  }
  return host.toLowerCase();
}

/**
 * Why a parsed entry is not a server although it parses as one: panels (Marzban, Remnawave,
 * 3x-ui) answer an expired, disabled or unsupported client with entries that point at 0.0.0.0
 * (or ::) and carry a notice as their name ("App not supported", "Subscription expired"). No
 * server lives at an unspecified address; dialled, it reaches this machine. Null for a real one.
 */
export function placeholderReason(server: { address: string; name: string }): string | null {
  if (!isUnspecifiedAddress(server.address)) return null;
  return `not a server: ${server.address} is the placeholder address panels use to carry a notice ("${server.name.slice(0, 80)}")`;
}

/** 0.0.0.0/8 ("this network") or the IPv6 unspecified address (::, 0:0:…:0), never a destination. */
export function isUnspecifiedAddress(address: string): boolean {
  if (/^0+\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)) return true;
  return address.includes(':') && /^[0:]+$/.test(address);
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\s"'<>\\\u0000-\u001f\u007f]/;

/**
 * A user id (vmess, vless, tuic). Accepted: a UUID (any case, dashes optional) or a short custom
 * id of up to 30 characters (Xray maps those to a UUID). Rejected as obviously broken: nothing,
 * spaces or control characters, something shaped like a UUID that is not one (a cut-off copy),
 * or a long string that is no UUID at all. The reason never repeats the id itself.
 */
export function checkUuid(label: string, raw: unknown): string {
  const id = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  if (id === '') return reject(`${label}: missing UUID`);
  if (UUID.test(id)) return id.toLowerCase();
  if (UNPRINTABLE.test(id)) return reject(`${label}: the UUID is malformed (it contains spaces, quotes or control characters)`);
  const uuidShaped = /^[0-9a-fA-F-]+$/.test(id) && (id.split('-').length >= 3 || id.length >= 20);
  if (uuidShaped) return reject(`${label}: the UUID is malformed (expected 8-4-4-4-12 hex digits, got ${id.length} characters)`);
  if (id.length > 30) return reject(`${label}: the UUID is malformed (not a UUID, and longer than a 30-character custom id)`);
  return id;
}

/** A secret that must be present (trojan / hysteria2 / tuic passwords). */
export function checkSecret(label: string, what: string, raw: unknown): string {
  const value = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : '';
  if (value.trim() === '') return reject(`${label}: missing ${what}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return reject(`${label}: the ${what} contains control characters`);
  return value;
}

/**
 * The 32 bytes of an X25519 key, as WireGuard (standard base64, padded) and REALITY (base64url
 * without padding, what `xray x25519` prints) write them: either alphabet, padding optional.
 * Null when the text is not base64 of exactly 32 bytes.
 */
function x25519KeyBytes(key: string): Buffer | null {
  // Buffer's base64 reader takes both alphabets (`-` and `_` as `+` and `/`), so the key is
  // checked and decoded as written: rewriting it to the standard alphabet first built two copies
  // per REALITY link for the same bytes.
  const bytes = X25519_KEY_TEXT.test(key) ? Buffer.from(key, 'base64') : null;
  return bytes && bytes.length === 32 ? bytes : null;
}

const X25519_KEY_TEXT = /^[A-Za-z0-9+/_-]{42,44}={0,2}$/;

/** An ML-DSA-65 public key's size, as `xray mldsa65` prints it (base64url, 2,603 characters). */
const MLDSA65_KEY_BYTES = 1952;

/**
 * REALITY's ML-DSA-65 key (`pqv`): 1,952 bytes in base64url. Xray refuses a config with any other,
 * and dialled without it the server's signature goes unchecked, against what the provider asked.
 */
export function checkMldsa65Key(label: string, raw: string): string {
  const key = raw.trim();
  const bytes = /^[A-Za-z0-9_-]+={0,2}$/.test(key) ? Buffer.from(key, 'base64url') : null;
  if (!bytes || bytes.length !== MLDSA65_KEY_BYTES) return reject(`${label}: the REALITY ML-DSA-65 key (pqv) is not one (1,952 bytes in base64url, as \`xray mldsa65\` prints it)`);
  return bytes.toString('base64url');
}

/** A WireGuard key: base64 of 32 bytes. */
export function checkWireguardKey(label: string, what: string, raw: unknown): string {
  const key = typeof raw === 'string' ? raw.trim() : '';
  if (key === '') return reject(`${label}: missing ${what}`);
  if (!x25519KeyBytes(key)) return reject(`${label}: the ${what} is not a 32-byte base64 key`);
  return key;
}

/**
 * A REALITY public key: the server's X25519 key, 32 bytes. Xray and sing-box decode it as
 * base64url without padding only and refuse the whole config otherwise, so a key a panel wrote in
 * standard base64 (`+`, `/`, `=`) is the same key rewritten in the form they read, and anything
 * that is not 32 bytes ("pubkey", a key cut short) refuses this entry alone, saying so.
 */
export function checkRealityPublicKey(label: string, raw: string): string {
  const key = raw.trim();
  const bytes = x25519KeyBytes(key);
  if (!bytes) {
    const shown = key.length > 20 ? `${key.slice(0, 20)}…` : key;
    return reject(`${label}: the REALITY public key "${shown}" is not an X25519 key (32 bytes in base64url, as \`xray x25519\` prints it)`);
  }
  return bytes.toString('base64url');
}

/**
 * The flow of a VLESS entry as a field to spread into it: nothing for no flow, which some panels
 * (trojan-panel) write as `flow=none` and Xray would refuse as a flow it does not know.
 */
export function flowField(label: string, raw: string): { flow?: string } {
  const flow = flowOf(label, raw);
  return flow === undefined ? {} : { flow };
}

/** flowField's flow itself, for a parser that sets the field on the entry it builds: undefined for no flow. */
export function flowOf(label: string, raw: string): string | undefined {
  const flow = raw.trim();
  return flow === '' || flow.toLowerCase() === 'none' ? undefined : checkFlow(label, flow);
}

/**
 * A VLESS flow. The XTLS v1 flows (`xtls-rprx-origin`, `-direct`, `-splice` and their `-udp443`
 * forms) were removed from Xray 1.8 and no current core runs them; `xtls-rprx-vision` replaced them.
 */
export function checkFlow(label: string, raw: string): string {
  const flow = raw.trim().toLowerCase();
  if (/^xtls-rprx-(origin|direct|splice)(-udp443)?$/.test(flow)) {
    return reject(`${label}: the flow "${flow}" (XTLS v1) is obsolete: Xray 1.8 removed it; the server must offer xtls-rprx-vision`);
  }
  return raw.trim();
}

/**
 * Every Shadowsocks cipher name some implementation has shipped: AEAD, 2022, the XChaCha
 * variants, no encryption, and the stream ciphers of the original protocol (which cores since
 * dropped: the core's capability check names those). A name outside this list (`114514`, a typo)
 * is no cipher, and the entry is refused with the name it gave.
 */
const SHADOWSOCKS_CIPHERS = new Set([
  'aes-128-gcm', 'aes-192-gcm', 'aes-256-gcm', 'chacha20-poly1305', 'chacha20-ietf-poly1305',
  'xchacha20-poly1305', 'xchacha20-ietf-poly1305',
  '2022-blake3-aes-128-gcm', '2022-blake3-aes-256-gcm', '2022-blake3-chacha20-poly1305',
  'none', 'plain', 'dummy',
  'aes-128-cfb', 'aes-192-cfb', 'aes-256-cfb', 'aes-128-ctr', 'aes-192-ctr', 'aes-256-ctr',
  'aes-128-cfb8', 'aes-192-cfb8', 'aes-256-cfb8', 'aes-128-ofb', 'aes-192-ofb', 'aes-256-ofb',
  'camellia-128-cfb', 'camellia-192-cfb', 'camellia-256-cfb', 'bf-cfb', 'cast5-cfb', 'des-cfb',
  'idea-cfb', 'rc2-cfb', 'seed-cfb', 'rc4', 'rc4-md5', 'rc4-md5-6', 'salsa20', 'chacha20', 'chacha20-ietf',
]);

export function checkShadowsocksCipher(label: string, raw: string): string {
  const method = raw.trim().toLowerCase();
  if (!SHADOWSOCKS_CIPHERS.has(method)) return reject(`${label}: unknown cipher "${method.slice(0, 40)}"`);
  return method;
}

/**
 * Hysteria2 port hopping: the ports a client hops between, as links (`443,20000-30000`), Clash
 * (`ports: 20000-30000`) and sing-box (`server_ports: ["20000:30000"]`) write them. Normalised to
 * `443,20000-30000`; each port 1–65535 and each range low to high, or the entry is refused.
 */
export function checkPortHopping(label: string, raw: string): string {
  const pieces = raw.split(',').map((piece) => piece.trim()).filter(Boolean);
  if (pieces.length === 0) return reject(`${label}: empty port-hopping range`);
  return pieces
    .map((piece) => {
      const match = /^(\d+)(?:\s*[-:]\s*(\d+))?$/.exec(piece);
      if (!match) return reject(`${label}: "${piece.slice(0, 20)}" is not a port or port range`);
      const low = checkPort(label, match[1]);
      if (match[2] === undefined) return String(low);
      const high = checkPort(label, match[2]);
      if (high < low) return reject(`${label}: the port range ${low}-${high} runs backwards`);
      return `${low}-${high}`;
    })
    .join(',');
}

/**
 * Certificate pins as share links (`pcs`), Xray (`pinnedPeerCertSha256`) and Hysteria
 * (`pinSHA256`) write them: each the SHA-256 of the server's whole certificate (DER) in hex, any
 * case, with or without the colons `openssl x509 -fingerprint -sha256` prints; several joined
 * with `~` (Xray's share-link form) or `,` (Xray's config form). Normalised to lower-case hex
 * without colons, duplicates dropped. A value that is no SHA-256 refuses the entry: dialled
 * without the pin it asked for, a self-signed server cannot be verified at all.
 */
export function checkCertPins(label: string, raw: string): string[] {
  const pins: string[] = [];
  for (const piece of raw.split(/[~,\s]+/)) {
    if (piece === '') continue;
    const hex = piece.replaceAll(':', '').toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex)) {
      const shown = piece.length > 20 ? `${piece.slice(0, 20)}…` : piece;
      return reject(`${label}: the certificate pin "${shown}" is not a SHA-256 fingerprint (64 hex digits, colons allowed)`);
    }
    if (!pins.includes(hex)) pins.push(hex);
  }
  return pins;
}

/** The VMess body ciphers Xray knows (infra/conf/vmess.go); sing-box knows them too. */
const VMESS_CIPHERS = new Set(['auto', 'aes-128-gcm', 'chacha20-poly1305', 'none', 'zero']);

/**
 * A VMess body cipher (`scy`, Xray's `security`, Clash's `cipher`). Xray runs any name it does not
 * know as `auto`, and sing-box 1.14 refuses the whole config for most of them ("unsupported
 * security type": aes-256-gcm, rc4-md5, aes-128-ctr; it still takes the legacy aes-128-cfb), so
 * such a name becomes `auto` here, as Xray reads it, and `note` tells the user. The VMess server follows the cipher the client
 * picks, so `auto` reaches the same server. Quantumult's and Surge's `chacha20-ietf-poly1305` is
 * the same AEAD as `chacha20-poly1305`.
 */
export function vmessCipher(label: string, raw: string, note: (text: string) => void): string {
  const cipher = raw.trim().toLowerCase();
  if (cipher === '') return 'auto';
  if (cipher === 'chacha20-ietf-poly1305') return 'chacha20-poly1305';
  if (VMESS_CIPHERS.has(cipher)) return cipher;
  const shown = cipher.length > 30 ? `${cipher.slice(0, 30)}…` : cipher;
  note(`${label}: the VMess cipher "${shown}" is unknown; "auto" is used instead, as Xray does`);
  return 'auto';
}
