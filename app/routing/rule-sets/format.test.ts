import { describe, expect, it } from 'vitest';
import { contentProblem, readSourceJson, toSourceJson } from './content';
import { cidrText, readGeoipList, readGeositeList } from './geo-dat';
import { geoipDat, geositeDat } from './testing/geo-dat-writer';

describe('a geosite.dat list', () => {
  const file = geositeDat({
    OTHER: [{ type: 'domain', value: 'elsewhere.test' }],
    LABSET: [
      { type: 'domain', value: 'inset.lab.test', attributes: ['ads'] },
      { type: 'full', value: 'exact.lab.test' },
      { type: 'plain', value: 'kw' },
      { type: 'regex', value: '^re\\.lab\\.test$' },
    ],
  });

  it.each([
    ['labset', 'the list named in any case, as the cores match it'],
    ['LabSet', 'mixed case'],
  ])('%s: every type in the core’s domain syntax (%s)', (list) => {
    expect(readGeositeList(file, list)).toEqual({
      ok: true,
      content: { domains: ['domain:inset.lab.test', 'full:exact.lab.test', 'keyword:kw', 'regexp:^re\\.lab\\.test$'], cidrs: [] },
    });
  });

  it.each([
    ['a list the file lacks names the lists it has', geositeDat({ A: [], B: [] }), 'cn', 'the geosite.dat file has no list "cn" (it has 2: a, b)'],
    ['an empty file', Buffer.alloc(0), 'cn', 'the file is empty, not a geosite.dat file'],
    ['a web page served in its place', Buffer.from('<!DOCTYPE html><html>Not Found</html>'), 'cn', 'the file is a web page, not a geosite.dat file'],
    ['JSON served in its place', Buffer.from('{"version":2,"rules":[]}'), 'cn', 'the file is JSON, not a geosite.dat file'],
  ])('%s', (_, bytes, list, problem) => {
    expect(readGeositeList(bytes, list)).toEqual({ ok: false, problem });
  });

  it('a file cut off inside the list is refused, not read as a shorter list', () => {
    const cut = file.subarray(0, file.length - 5);
    const read = readGeositeList(cut, 'labset');
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.problem).toMatch(/^the file is not a geosite.dat file \(a record at byte \d+ claims \d+ bytes, past the end\)$/);
  });

  it('random bytes are no list file', () => {
    const noise = Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 7919 + 13) % 256));
    expect(readGeositeList(noise, 'cn').ok).toBe(false);
  });
});

describe('a geoip.dat list', () => {
  it('IPv4 and IPv6 blocks as CIDR text', () => {
    const file = geoipDat({ RU: ['203.0.113.0/24', '2001:db8::/32', '2001:db8:0:1::1/128'], IR: ['198.51.100.0/24'] });
    expect(readGeoipList(file, 'ru')).toEqual({ ok: true, content: { domains: [], cidrs: ['203.0.113.0/24', '2001:db8::/32', '2001:db8:0:1::1/128'] } });
  });

  it('a list that matches everything outside it cannot become address rules', () => {
    const file = geoipDat({ NOTRU: ['203.0.113.0/24'] }, ['NOTRU']);
    expect(readGeoipList(file, 'notru')).toMatchObject({ ok: false, problem: expect.stringContaining('reverse_match') });
  });

  it.each([
    [[127, 0, 0, 0], 8, '127.0.0.0/8'],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 32, '2001:db8::/32'],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, '::1/128'],
    [[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 10, 'fe80::/10'],
    [[0x20, 0x01, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1], 128, '2001:1:0:1::1/128'],
    [[1, 2, 3], 24, null],
    [[1, 2, 3, 4], 33, null],
  ])('%j/%i is %s', (bytes, prefix, text) => {
    expect(cidrText(Uint8Array.from(bytes), prefix)).toBe(text);
  });
});

describe('sing-box rule-set source JSON', () => {
  it.each([
    [
      'every name field and addresses, single values as decompile writes them',
      { version: 2, rules: [{ domain: 'exact.lab.test', domain_suffix: 'inset.lab.test', domain_keyword: 'kw', domain_regex: '^re\\.' }, { ip_cidr: '127.0.0.99/32' }] },
      { domains: ['full:exact.lab.test', 'domain:inset.lab.test', 'keyword:kw', 'regexp:^re\\.'], cidrs: ['127.0.0.99/32'] },
    ],
    [
      'a suffix with a leading dot matches only below the name',
      { version: 3, rules: [{ domain_suffix: ['.sub.lab.test'] }] },
      { domains: ['regexp:\\.sub\\.lab\\.test$'], cidrs: [] },
    ],
    ['version 1', { version: 1, rules: [{ ip_cidr: ['10.0.0.0/8', '::1/128'] }] }, { domains: [], cidrs: ['10.0.0.0/8', '::1/128'] }],
  ])('%s', (_, json, content) => {
    expect(readSourceJson(JSON.stringify(json))).toEqual({ ok: true, content, notConvertible: null });
  });

  it('rules matching by more than names and addresses are read, and said to be beyond Xray', () => {
    const read = readSourceJson(JSON.stringify({ version: 2, rules: [{ domain: ['a.test'], port: [443] }, { type: 'logical', mode: 'and', rules: [] }] }));
    expect(read).toMatchObject({ ok: true, notConvertible: "it matches by logical rules, mode, port, rules, which Xray's rules cannot take from a rule set" });
  });

  it.each([
    ['not JSON', 'domain:a.test', 'the file is not JSON'],
    ['a web page', '<html>404</html>', 'the file is a web page, not rule-set JSON'],
    ['a version sing-box does not read', '{"version":9,"rules":[]}', "the rule set's version is 9; sing-box 1.14 reads 1, 2 and 3"],
    ['no rules', '{"version":2}', 'the rule set has no "rules" list'],
    ['a field of the wrong type', '{"version":2,"rules":[{"domain":[1]}]}', 'rule 1: "domain" is not a string or a list of strings'],
  ])('%s is refused', (_, text, problem) => {
    expect(readSourceJson(text)).toEqual({ ok: false, problem });
  });

  it('content written as source JSON reads back as the same content', () => {
    const content = { domains: ['full:exact.lab.test', 'domain:inset.lab.test', 'keyword:kw', 'regexp:^re\\.', 'bare'], cidrs: ['127.0.0.99/32'] };
    const json = toSourceJson(content);
    expect(json).toEqual({
      version: 2,
      rules: [{ domain: ['exact.lab.test'], domain_suffix: ['inset.lab.test'], domain_keyword: ['kw', 'bare'], domain_regex: ['^re\\.'] }, { ip_cidr: ['127.0.0.99/32'] }],
    });
    const back = readSourceJson(JSON.stringify(json));
    expect(back.ok && [...back.content.domains].sort()).toEqual(['domain:inset.lab.test', 'full:exact.lab.test', 'keyword:bare', 'keyword:kw', 'regexp:^re\\.']);
  });
});

describe('regular expressions the cores would refuse at start', () => {
  it.each([
    ['regexp:^ok\\.test$', null],
    ['regexp:([', 'the list has a regular expression the core cannot use: "(["'],
    ['regexp:^(?!ads)', 'the list has a regular expression the core cannot use: "^(?!ads)"'],
    ['regexp:(a)\\1', 'the list has a regular expression the core cannot use: "(a)\\\\1"'],
    ['keyword:([', null],
  ])('%s', (entry, problem) => {
    expect(contentProblem({ domains: [entry], cidrs: [] })).toBe(problem);
  });
});
