import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from './settings-defaults';
import { DEFAULT_SETTINGS as MADE_BY_THE_SCHEMAS, settingsSchema } from './settings';

describe('the settings of a fresh install', () => {
  it('are what the schemas make of an empty settings file, field for field', () => {
    // A default changed in the schemas and not here would show the window wrong settings until its first snapshot.
    expect(DEFAULT_SETTINGS).toEqual(settingsSchema.parse({}));
    expect(DEFAULT_SETTINGS).toEqual(MADE_BY_THE_SCHEMAS);
  });
});
