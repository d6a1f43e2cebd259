import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoutingRule } from '../../shared/routing';
import type { ServerGroup, SettingsPatch } from '../../shared/settings';
import { SettingsFile } from './settings-file';
import { SettingsStore } from './store';

const update = async (s: SettingsStore, patch: SettingsPatch) => s.save(s.validate(patch));

async function store(): Promise<SettingsStore> {
  const s = new SettingsStore(new SettingsFile({ dataDir: mkdtempSync(join(tmpdir(), 'settings-groups-')) }));
  await s.load();
  return s;
}

const ai: ServerGroup = { name: 'AI', members: { by: 'country', countries: ['US'] } };
const aiRule: RoutingRule = { domain: ['domain:ai.lab.test'], ip: [], outbound: 'group:AI' };

describe('server groups in the settings', () => {
  it('a group and a rule sending names through it are kept together, and read back', async () => {
    const s = await store();
    await update(s, { groups: [ai], routing: { rules: [aiRule] } });
    expect(s.get().groups).toEqual([ai]);
    expect(s.get().routing.rules).toEqual([aiRule]);
  });

  const refused: [string, SettingsPatch, RegExp][] = [
    ['a rule naming no group', { routing: { rules: [aiRule, { domain: ['x.test'], outbound: 'group:Other' }] } }, /invalid setting routing, rule 2: outbound "group:Other" names no group/],
    ['a group removed while a rule still names it', { groups: [] }, /names no group/],
    ['two groups with one name', { groups: [ai, { name: 'AI', members: { by: 'servers', serverIds: ['s1'] } }] }, /invalid setting groups\.1\.name: "AI" names two groups/],
    ['a country that is no code', { groups: [{ name: 'US', members: { by: 'country', countries: ['usa'] } }] }, /groups\.0\.members\.countries\.0: .*two-letter country code/],
    ['a group with no members', { groups: [{ name: 'Mine', members: { by: 'servers', serverIds: [] } }] }, /groups\.0\.members\.serverIds/],
    ['a name that could not be told apart in a rule', { groups: [{ name: ' AI', members: { by: 'country', countries: ['US'] } }] }, /groups\.0\.name: .*starting with a letter or digit/],
    ['an outbound that is neither kind', { routing: { rules: [{ domain: ['x.test'], outbound: 'group:' }] } } as unknown as SettingsPatch, /unknown outbound "group:": use proxy, direct, block or group:NAME/],
  ];
  it.each(refused)('refused whole, named: %s', async (_, patch, message) => {
    const s = await store();
    await update(s, { groups: [ai], routing: { rules: [aiRule] } });
    const before = s.get();
    await expect(update(s, patch)).rejects.toThrow(message);
    expect(s.get()).toBe(before);
  });
});
