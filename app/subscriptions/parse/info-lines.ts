import type { SubscriptionUsage } from '../../../shared/domain/subscription';

/**
 * Subscription info lines: panels write the account's usage and the provider's name into the
 * body, beside the share links, for clients that read no response headers (Shadowrocket's
 * convention). They are information about the subscription, not entries that failed to parse.
 *
 * The formats, as producers write them and clients read them:
 * - V2Board and its forks (v2board/v2board, cedar2025/Xboard, wyx2685/v2board:
 *   app/Protocols/Shadowrocket.php) put first, before the links, and base64 the whole body:
 *   `STATUS=🚀↑:{u}GB,↓:{d}GB,TOT:{transfer_enable}GB💡Expires:{Y-m-d}\r\n`, each figure
 *   `round(bytes / (1024*1024*1024), 2)`: "GB" means GiB; Xboard writes `Expires:N/A` when
 *   the account never expires. Ports of that code (Go, TypeScript panels) write the same line;
 *   one Go panel drops the emoji and runs the date into the unit: `STATUS=↑:1.00GB,↓:2.00GB,
 *   TOT:100.00GBExpires:…`. Another writes 2099-12-31 for "never".
 * - `REMARKS=<name>` on a line of its own, before the links, names the subscription (a
 *   Shadowrocket-style body served by a small Node panel: `REMARKS=${key}\r\n` + links).
 * - Clients that read them: a TypeScript client reads `↑:`, `↓:`, `TOT:` with units B/KB/MB/GB/TB
 *   in powers of 1024 and `Expires:YYYY-MM-DD`; a Flutter client (a Hiddify-style subscription
 *   tile) reads the same with GB/MB/KB/TB; other Flutter and Python clients only skip lines that
 *   start with `STATUS=`, `REMARKS=` (and `INTERVAL=`) so they are not taken for servers.
 * So units are read as powers of 1024 (what the producers divide by), a unit must be written
 * (a bare number says nothing), and the key is matched as producers write it, upper case.
 */

export interface SubscriptionInfo {
  usage?: SubscriptionUsage;
  remarks?: string;
}

const STATUS = 'STATUS=';
const REMARKS = 'REMARKS=';

/** Whether a line of a list is an info line (so not a server, nor a problem). */
export function isInfoLine(line: string): boolean {
  const t = line.trimStart();
  return t.startsWith(STATUS) || t.startsWith(REMARKS);
}

/** What the info lines of a body say; the first readable line of each kind wins. */
export function subscriptionInfoOf(lines: readonly string[]): SubscriptionInfo {
  const info: SubscriptionInfo = {};
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith(STATUS) && !info.usage) {
      const usage = usageOfStatus(line.slice(STATUS.length));
      if (usage) info.usage = usage;
    } else if (line.startsWith(REMARKS) && info.remarks === undefined) {
      const remarks = remarksOf(line.slice(REMARKS.length));
      if (remarks) info.remarks = remarks;
    }
  }
  return info;
}

/** Whether a STATUS line says nothing this app can read (it is then worth a note, never an error). */
export function isUnreadStatusLine(line: string): boolean {
  const t = line.trim();
  return t.startsWith(STATUS) && usageOfStatus(t.slice(STATUS.length)) === null;
}

const UNIT_POWER: Record<string, number> = { B: 0, KB: 1, MB: 2, GB: 3, TB: 4, PB: 5 };
// The unit is matched by itself, so `100.00GBExpires:` (no separator) reads as 100 GB, then the date.
const AMOUNT = String.raw`\s*[:：]?\s*(\d+(?:\.\d+)?)\s*([KMGTP]?i?B)`;
const UPLOAD = new RegExp(`↑${AMOUNT}`, 'i');
const DOWNLOAD = new RegExp(`↓${AMOUNT}`, 'i');
const TOTAL = new RegExp(`TOT${AMOUNT}`, 'i');
const EXPIRES = /Expires?\s*[:：]?\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?/i;

/** `🚀↑:1.2GB,↓:30GB,TOT:100GB💡Expires:2026-01-01` → usage in bytes; null when nothing in it reads. */
function usageOfStatus(value: string): SubscriptionUsage | null {
  const usage: SubscriptionUsage = {};
  const upload = bytesOf(UPLOAD.exec(value));
  const download = bytesOf(DOWNLOAD.exec(value));
  const total = bytesOf(TOTAL.exec(value));
  const expire = expireOf(EXPIRES.exec(value));
  if (upload !== null) usage.upload = upload;
  if (download !== null) usage.download = download;
  if (total !== null) usage.total = total;
  if (expire !== null) usage.expire = expire;
  return Object.keys(usage).length > 0 ? usage : null;
}

function bytesOf(match: RegExpExecArray | null): number | null {
  if (!match) return null;
  const power = UNIT_POWER[(match[2] as string).toUpperCase().replace('I', '')];
  const amount = Number(match[1]);
  if (power === undefined || !Number.isFinite(amount)) return null;
  const bytes = Math.round(amount * 1024 ** power);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/**
 * A date (`YYYY-MM-DD`, optionally with a time) → epoch seconds. A date alone is taken at noon
 * UTC: the producer wrote it in its own time zone, which the line does not say, and noon shows
 * the same calendar day to a user anywhere from UTC−11 to UTC+11. A time is taken as UTC.
 */
function expireOf(match: RegExpExecArray | null): number | null {
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const hasTime = match[4] !== undefined;
  const [hour, minute, second] = hasTime ? [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)] : [12, 0, 0];
  if (year < 1971 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-31 over into March: a date that does not exist is not read.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return ms / 1000;
}

/** The provider's name for the subscription: control characters made spaces, at most 200 characters. */
function remarksOf(value: string): string | null {
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text ? text.slice(0, 200) : null;
}
