import { describe, expect, it } from 'vitest';
import { technicalRuns } from './technical';

const tokens = (text: string) => technicalRuns(text).filter((r) => r.technical).map((r) => r.text);

describe('technical tokens in translated text', () => {
  it.each([
    ['هر خط یکی: 192.168.1.0/24، 2001:db8::/32، 203.0.113.7', ['192.168.1.0/24', '2001:db8::/32', '203.0.113.7']],
    ['One per line: 192.168.1.0/24, 2001:db8::/32, 203.0.113.7', ['192.168.1.0/24', '2001:db8::/32', '203.0.113.7']],
    ['هر خط یکی: domain:example.com، full:www.example.com، keyword:shop، regexp:…', ['domain:example.com', 'full:www.example.com', 'keyword:shop', 'regexp:…']],
    ['المنفذ 443 على [::1]:1080 و https://panel.example.com/sub', ['443', '[::1]:1080', 'https://panel.example.com/sub']],
    ['65536 بايت في 1 ms', ['65536', '1']],
    ['مسیر کامل (/usr/bin/app، C:\\…\\app.exe، /Applications/App.app)، نام برنامه (app.exe) یا uid:N', ['/usr/bin/app', 'C:\\…\\app.exe', '/Applications/App.app', 'app.exe', 'uid:N']],
    ['نشانی‌های شبکهٔ خصوصی (10.x، 172.16–31.x، 192.168.x، fc00::/7) روی 127.0.0.1', ['10.x', '172.16–31.x', '192.168.x', 'fc00::/7', '127.0.0.1']],
  ])('%s', (text, expected) => {
    expect(tokens(text)).toEqual(expected);
  });

  it('leaves words and a sentence’s own punctuation alone, and loses no character', () => {
    const text = 'One per line: Hosts, names – and / or. Then 10.0.0.1.';
    expect(tokens(text)).toEqual(['10.0.0.1']);
    expect(technicalRuns(text).map((r) => r.text).join('')).toBe(text);
  });
});
