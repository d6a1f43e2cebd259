import { describe, expect, it } from 'vitest';
import { routingIssueText, routingSettingsSchema } from './routing';
import { RULE_SET_CATALOGUE, ruleSetSchema } from './rule-sets';

const SET = { id: 'lab', name: 'Lab', url: 'http://127.0.0.1:8080/geosite.dat', format: 'geosite-dat', list: 'labset', outbound: 'direct' };

describe('rule sets in the routing settings', () => {
  it('a set is off, updated daily and leaves the preset alone unless said', () => {
    expect(ruleSetSchema.parse(SET)).toEqual({ ...SET, updateHours: 24, enabled: false, inPlaceOfPreset: false });
    expect(routingSettingsSchema.parse({}).ruleSets).toEqual([]);
  });

  it('the ready-made entries are valid and all off until chosen', () => {
    for (const set of RULE_SET_CATALOGUE) expect(ruleSetSchema.parse(set)).toEqual(set);
    expect(RULE_SET_CATALOGUE.every((s) => !s.enabled)).toBe(true);
    expect(new Set(RULE_SET_CATALOGUE.map((s) => s.id)).size).toBe(RULE_SET_CATALOGUE.length);
  });

  it.each([
    [{ ...SET, list: undefined }, 'routing, rule set 1, list: a geosite-dat set needs the name of its list'],
    [{ ...SET, format: 'srs' }, 'routing, rule set 1, list: a srs set holds one list: leave the list name out'],
    [{ ...SET, url: 'ftp://x/geosite.dat' }, 'routing, rule set 1, url: is not an http:// or https:// address'],
    [{ ...SET, format: 'mmdb' }, 'routing, rule set 1, format: unknown format "mmdb": use geosite-dat, geoip-dat, srs, source-json'],
    [{ ...SET, updateHours: 0 }, 'routing, rule set 1, updateHours: Too small: expected number to be >=1'],
    [{ ...SET, id: '../etc' }, 'routing, rule set 1, id: is not a rule-set id (a-z, 0-9 and "-", at most 40)'],
  ])('an invalid set is named: %j', (set, message) => {
    const result = routingSettingsSchema.safeParse({ ruleSets: [set] });
    expect(result.success).toBe(false);
    if (!result.success) expect(routingIssueText(result.error).map((l) => `routing, ${l}`)).toContain(message);
  });

  it('two sets may not share an id (the copy on disk is named after it)', () => {
    const result = routingSettingsSchema.safeParse({ ruleSets: [SET, SET] });
    expect(result.success).toBe(false);
    if (!result.success) expect(routingIssueText(result.error)).toEqual(['rule set 2, id: "lab" is used by two rule sets']);
  });
});
