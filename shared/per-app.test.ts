import { describe, expect, it } from 'vitest';
import { activeEntries, appEntryOf } from './per-app';
import { settingsPatchSchema, settingsSchema } from './settings';

describe('per-app entries', () => {
  it.each([
    ['/usr/bin/firefox', { kind: 'path', path: '/usr/bin/firefox' }],
    ['C:\\Program Files\\App\\app.exe', { kind: 'path', path: 'C:\\Program Files\\App\\app.exe' }],
    ['/Applications/Discord.app', { kind: 'path', path: '/Applications/Discord.app' }],
    ['discord', { kind: 'name', name: 'discord' }],
    ['  Discord.exe ', { kind: 'name', name: 'Discord.exe' }],
    ['uid:1001', { kind: 'uid', uid: 1001 }],
    ['bin/firefox', null],
    ['', null],
    ['uid:-1', null],
    ['uid:99999999999', null],
    ['/usr/bin/a"b', null],
  ])('%j', (text, entry) => {
    expect(appEntryOf(text)).toEqual(entry);
  });

  it('is off by default; both lists are kept while one is active', () => {
    expect(settingsSchema.parse({}).perApp).toEqual({ mode: 'off', bypass: [], only: [] });
    const kept = settingsSchema.parse({ perApp: { mode: 'only', bypass: ['/usr/bin/steam'], only: ['/usr/bin/cursor', 'uid:1001'] } }).perApp;
    expect(activeEntries(kept)).toEqual([
      { kind: 'path', path: '/usr/bin/cursor' },
      { kind: 'uid', uid: 1001 },
    ]);
    expect(kept.bypass).toEqual(['/usr/bin/steam']);
  });

  it('a relative path is refused with what an entry may be', () => {
    const result = settingsPatchSchema.safeParse({ perApp: { mode: 'bypass', bypass: ['bin/firefox'], only: [] } });
    expect(result.error?.issues[0]).toMatchObject({ path: ['perApp', 'bypass', 0], message: expect.stringMatching(/full path .* program name .* uid:N/) });
  });
});
