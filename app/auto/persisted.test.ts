import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonFile } from '../storage/json-file';
import { NOTHING_PERSISTED, persistedAutoStateSchema } from './persisted';

describe("Auto's persisted state", () => {
  it('round-trips through a JsonFile: marks, return candidate, the subscription Auto is on for', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'auto-')), 'auto.json');
    const file = new JsonFile({ path, schema: persistedAutoStateSchema, fallback: () => NOTHING_PERSISTED });
    const state = { subscriptionId: 'A', excluded: { A: ['de'], B: ['b2'] }, returnCandidate: 'fi' };
    await file.save(state);
    expect((await file.load()).value).toEqual(state);
  });

  it('a damaged file falls back to nothing remembered, and says so', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'auto-')), 'auto.json');
    writeFileSync(path, JSON.stringify({ subscriptionId: 7, excluded: [] }));
    const file = new JsonFile({ path, schema: persistedAutoStateSchema, fallback: () => NOTHING_PERSISTED });
    const loaded = await file.load();
    expect(loaded.value).toEqual(NOTHING_PERSISTED);
    expect(loaded.problem).toMatch(/unreadable/);
  });
});
