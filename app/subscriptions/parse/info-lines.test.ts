import { describe, expect, it } from 'vitest';
import { isInfoLine, isUnreadStatusLine, type SubscriptionInfo, subscriptionInfoOf } from './info-lines';

const GiB = 1024 ** 3;
/** Noon UTC of a date: what a date-only `Expires:` is read as. */
const noon = (date: string) => Date.parse(`${date}T12:00:00Z`) / 1000;

// Lines as panels write them (V2Board / Xboard `Shadowrocket.php`, its ports, small Node panels).
const CASES: [string, string[], SubscriptionInfo][] = [
  ['V2Board / Xboard STATUS line', ['STATUS=🚀↑:1.2GB,↓:30GB,TOT:100GB💡Expires:2026-01-01'], { usage: { upload: Math.round(1.2 * GiB), download: 30 * GiB, total: 100 * GiB, expire: noon('2026-01-01') } }],
  ['V2Board rounding to two decimals, zero upload', ['STATUS=🚀↑:0GB,↓:6.11GB,TOT:800GB💡Expires:2027-07-10'], { usage: { upload: 0, download: Math.round(6.11 * GiB), total: 800 * GiB, expire: noon('2027-07-10') } }],
  ['Xboard with no expiry: Expires:N/A', ['STATUS=🚀↑:1GB,↓:2GB,TOT:100GB💡Expires:N/A'], { usage: { upload: GiB, download: 2 * GiB, total: 100 * GiB } }],
  ['a Go panel: no emoji, the date run into the unit, a time of day', ['STATUS=↑:1.00GB,↓:2.50GB,TOT:100.00GBExpires:2025-03-04 15:04:05'], { usage: { upload: GiB, download: 2.5 * GiB, total: 100 * GiB, expire: Date.parse('2025-03-04T15:04:05Z') / 1000 } }],
  ['units B, KB, MB, TB in powers of 1024', ['STATUS=↑:512B,↓:300MB,TOT:1.5TB'], { usage: { upload: 512, download: 300 * 1024 ** 2, total: Math.round(1.5 * 1024 ** 4) } }],
  ['KiB / GiB spelled out, spaces and full-width colons', ['STATUS= ↑ : 10 KiB , ↓：2 GiB , TOT: 5 gb'], { usage: { upload: 10 * 1024, download: 2 * GiB, total: 5 * GiB } }],
  ['only the expiry', ['STATUS=💡Expires:2026-02-28'], { usage: { expire: noon('2026-02-28') } }],
  ['only the total (unlimited time)', ['STATUS=TOT:50GB'], { usage: { total: 50 * GiB } }],
  ['REMARKS names the subscription', ['REMARKS=My Provider'], { remarks: 'My Provider' }],
  ['REMARKS with emoji and RTL text, surrounding spaces trimmed', ['REMARKS=  🚀 سرویس ویژه  '], { remarks: '🚀 سرویس ویژه' }],
  ['both lines, in either order', ['REMARKS=Provider', 'STATUS=↑:1GB,↓:1GB,TOT:10GB'], { remarks: 'Provider', usage: { upload: GiB, download: GiB, total: 10 * GiB } }],
  ['the first readable STATUS wins', ['STATUS=nothing here', 'STATUS=TOT:10GB', 'STATUS=TOT:99GB'], { usage: { total: 10 * GiB } }],
  ['an empty REMARKS names nothing', ['REMARKS=   '], {}],
  ['a bare number without a unit is not read as bytes', ['STATUS=↑:100,↓:200,TOT:300'], {}],
  ['a date that does not exist is not read', ['STATUS=TOT:1GB💡Expires:2026-02-31'], { usage: { total: GiB } }],
  ['a month 13 is not read', ['STATUS=Expires:2026-13-01'], {}],
  ['garbage after STATUS=', ['STATUS=🚀🚀🚀 ✨✨ %%%'], {}],
  ['a number too large for bytes is not read', [`STATUS=TOT:${'9'.repeat(400)}TB`], {}],
  ['lower-case keys are not info lines (no producer writes them)', ['status=TOT:10GB', 'remarks=x'], {}],
  ['no lines', [], {}],
];

describe('subscription info lines (STATUS= / REMARKS=)', () => {
  it.each(CASES)('%s', (_title, lines, expected) => {
    expect(subscriptionInfoOf(lines)).toEqual(expected);
  });

  it('tells info lines from links and other text', () => {
    expect(isInfoLine('STATUS=🚀↑:1GB')).toBe(true);
    expect(isInfoLine('  REMARKS=Provider')).toBe(true);
    expect(isInfoLine('vless://a@b:1#STATUS=x')).toBe(false);
    expect(isInfoLine('# STATUS=1')).toBe(false);
    expect(isInfoLine('STATUS')).toBe(false);
  });

  it('flags a STATUS line that says nothing readable (for a note, not an error)', () => {
    expect(isUnreadStatusLine('STATUS=✨')).toBe(true);
    expect(isUnreadStatusLine('STATUS=TOT:1GB')).toBe(false);
    expect(isUnreadStatusLine('REMARKS=x')).toBe(false);
  });
});
