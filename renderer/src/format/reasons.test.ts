import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../../shared/domain/auto';
import type { Reachability } from '../../../shared/domain/status';
import { createI18n } from '../i18n';
import { describeVerdict, failureText, nameList, pauseReasonText, stayReasonText, switchReasonText, triggerText } from './reasons';

const NAMES: Record<string, string> = { b1: 'B1', c2: 'C2', d3: 'D3', de: 'Germany' };
const nameOf = (id: string) => NAMES[id] ?? id;
/** Without the bidi isolates around names, for reading. */
const plain = (text: string) => text.replace(/[\u2068\u2069]/g, '');

function verdict(kind: Reachability['verdict'], points: [string, boolean][] = [], reason = 'the engine’s own words'): Reachability {
  return { verdict: kind, reason, vantagePoints: points.map(([serverId, reached]) => ({ serverId, reached })), derivedAt: 0 };
}

function words(r: Reachability, language = 'en', trustedCheckerId: string | null = null) {
  const i18n = createI18n(language as 'en');
  const out = describeVerdict(r, { t: i18n.t, language, server: 'Germany', nameOf, trustedCheckerId });
  return { summary: plain(out.summary), sentence: plain(out.sentence), detail: out.detail };
}

describe('the reachability verdict in words, from its vantage points', () => {
  it.each([
    [verdict('ok'), 'Reachable: answers from your network'],
    [verdict('failing'), 'Failing: failed from your network, not yet often enough for a verdict'],
    [verdict('blocked-here', [['b1', true], ['c2', true]]), 'Blocked here: reached through B1 and C2, not from your network'],
    [verdict('blocked-here', [['b1', true], ['c2', true], ['d3', false]]), 'Blocked here: reached through B1 and C2, not from your network nor through D3'],
    [verdict('down', [['b1', false], ['c2', false]]), 'Down: not reached through B1 and C2, nor from your network'],
    [verdict('unknown'), 'Unknown: not enough to judge by yet'],
    [verdict('unknown', [['b1', true]]), 'Unknown: reached through B1, not from your network; a verdict needs two independent vantage points'],
    [verdict('unknown', [['b1', true], ['c2', false]]), 'Unknown: vantage points disagree: reached through B1, not through C2'],
    [verdict('unknown', [['b1', false]]), 'Unknown: not reached through B1 either: that is about the path between B1 and Germany, not which end is blocked'],
    [verdict('unknown', [['b1', false], ['c2', false]]), 'Unknown: not reached through B1 and C2 either, but they exit in one network; a verdict needs two independent vantage points'],
  ])('%#: %s', (reachability, expected) => {
    expect(words(reachability).summary).toBe(expected);
    expect(words(reachability).detail).toBe('the engine’s own words');
  });

  it('lets the trusted checker speak alone (spec/reachability.md rule 6)', () => {
    expect(words(verdict('blocked-here', [['b1', true]]), 'en', 'b1').sentence).toBe('the trusted checker B1 reaches it, your network does not');
    expect(words(verdict('blocked', [['b1', false]]), 'en', 'b1').sentence).toBe('its address is blocked: the trusted checker B1 cannot reach it');
  });

  it('says it in the user’s language, server names and lists included', () => {
    const blocked = verdict('blocked-here', [['b1', true], ['c2', true]]);
    expect(words(blocked, 'ru').summary).toBe('Заблокирован здесь: доступен через B1 и C2, но не из вашей сети');
    expect(words(blocked, 'fa').summary).toBe('اینجا مسدود: از طریق B1 و C2 در دسترس است، ولی از شبکهٔ شما نه');
    expect(words(blocked, 'ar').summary).toBe('محجوب هنا: يمكن الوصول إليه عبر B1 وC2، لا من شبكتك');
    expect(words(blocked, 'zh').summary).toBe('在此处被封锁：经 B1和C2 可以访问，但从您的网络不行');
  });

  it('keeps the names isolated, so a Persian name does not scramble an English sentence', () => {
    const i18n = createI18n('en');
    const out = describeVerdict(verdict('blocked-here', [['b1', true]]), { t: i18n.t, language: 'en', server: 'x', nameOf: () => 'سرور', trustedCheckerId: null });
    expect(out.sentence).toContain('\u2068سرور\u2069');
  });

  it('shows the engine’s words for a verdict this renderer does not know', () => {
    const unknownKind = { ...verdict('ok'), verdict: 'quarantined' } as unknown as Reachability;
    expect(words(unknownKind)).toEqual({ summary: 'the engine’s own words', sentence: 'the engine’s own words', detail: 'the engine’s own words' });
  });

  it('lists names the way each language does', () => {
    expect(plain(nameList(['A', 'B', 'C'], 'en'))).toBe('A, B, and C');
    expect(plain(nameList(['A', 'B'], 'ru'))).toBe('A и B');
  });
});

describe('Auto’s reasons in words', () => {
  const en = createI18n('en').t;
  const stay = (reason: string, extra: object = {}) => ({ type: 'stay', at: 0, id: 'de', reason, carrying: 'de', ...extra }) as Extract<TimelineEntry, { type: 'stay' }>;

  it.each([
    ['current-answered', {}, 'it answered'],
    ['return-pending', { candidate: 'b1', answers: 1, needed: 2 }, 'B1 answered 1 time in a row; going back needs 2'],
    ['return-pending', {}, 'the server it left answers again, not yet often enough to go back'],
    ['nobody-answered', {}, 'no server answered, not even this one: more likely the network; nothing recorded'],
    ['own-subscription-silent', {}, 'no server of its own subscription answered'],
    ['a-newer-reason', {}, 'a-newer-reason'],
  ])('stay: %s', (reason, extra, expected) => {
    expect(plain(stayReasonText(en, stay(reason, extra), nameOf)!)).toBe(expected);
  });

  it('counts with the plural rules of each language', () => {
    const pending = (answers: number) => stay('return-pending', { candidate: 'b1', answers, needed: 2 });
    expect(plain(stayReasonText(en, pending(3), nameOf)!)).toBe('B1 answered 3 times in a row; going back needs 2');
    const ru = createI18n('ru').t;
    expect(plain(stayReasonText(ru, pending(1), nameOf)!)).toBe('B1 ответил 1 раз подряд; для возврата нужно 2');
    expect(plain(stayReasonText(ru, pending(3), nameOf)!)).toBe('B1 ответил 3 раза подряд; для возврата нужно 2');
    expect(plain(stayReasonText(ru, pending(5), nameOf)!)).toBe('B1 ответил 5 раз подряд; для возврата нужно 2');
    const ar = createI18n('ar').t;
    expect(plain(stayReasonText(ar, pending(2), nameOf)!)).toContain('مرتين متتاليتين');
    const fa = createI18n('fa').t;
    expect(plain(stayReasonText(fa, pending(1), nameOf)!)).toBe('B1 ۱ بار پشت سر هم پاسخ داد؛ برای بازگشت ۲ بار لازم است');
  });

  it.each([
    ['after-switch', 'a short quiet time after a switch'],
    ['after-check', 'a short quiet time after a check'],
    ['network-lost', 'the network seems gone'],
    ['rate-limited', 'three switches in three minutes already'],
    ['own-sub-retry', 'its own subscription kept failing; it is tried again later'],
    ['something-new', 'something-new'],
  ])('pause: %s', (reason, expected) => {
    expect(plain(pauseReasonText(en, reason)!)).toBe(expected);
  });

  it('names a switch’s reason, and shows a newer engine’s code as it is', () => {
    const names = { from: 'B1', to: 'C2' };
    const entry = (reason: string) => ({ type: 'switch', at: 0, from: 'b1', to: 'c2', reason, carrying: 'c2' }) as Extract<TimelineEntry, { type: 'switch' }>;
    expect(switchReasonText(en, entry('current-silent'), names)).toBe('B1 stopped answering');
    expect(switchReasonText(createI18n('zh').t, entry('return'), names)).toBe('C2 连续两次响应');
    expect(plain(switchReasonText(en, entry('maintenance'), names))).toBe('maintenance');
  });

  it('names probe failures and check triggers, falling back to the engine’s words', () => {
    expect(failureText(en, 'timeout', 'no answer within 5 s')).toBe('no answer in time');
    expect(failureText(createI18n('fa').t, 'refused')).not.toBe('connection refused');
    expect(failureText(en, 'quic-blocked', 'QUIC handshake dropped')).toBe('QUIC handshake dropped');
    expect(triggerText(en, 'stall')).toBe('traffic stalled');
    expect(triggerText(en, 'cosmic-ray')).toBe('cosmic-ray');
    expect(triggerText(en, 'dial-failure', 'reset')).toBe('the core could not connect (connection reset)');
  });

  it.each([
    ['en', 'freezes', 16_200, 'traffic freezes after 16 KB on A1'],
    ['en', 'throttled', 65_536, 'traffic on A1 is throttled below 32 KB/s'],
    ['ru', 'freezes', 16_384, 'трафик замерзает после 16 КБ на A1'],
    ['fa', 'freezes', 16_384, 'ترافیک روی A1 پس از ۱۶ کیلوبایت متوقف می‌شود'],
    ['ar', 'freezes', 16_384, 'تتجمّد حركة البيانات على A1 بعد 16 كيلوبايت'],
    ['zh', 'freezes', 16_384, 'A1 上的流量在 16 KB 后冻结'],
  ] as const)('a freeze check says what the transfer test saw (%s, %s)', (language, verdict, bytes, expected) => {
    expect(plain(triggerText(createI18n(language).t, 'freeze', undefined, { server: 'A1', verdict, bytes }))).toBe(expected);
    expect(plain(stayReasonText(createI18n(language).t, { type: 'stay', at: 0, id: 'a1', reason: 'nothing-passes', carrying: 'a1' }, nameOf)!)).not.toMatch(/nothing-passes/);
  });
});
