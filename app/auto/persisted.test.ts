import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autoStateFile, NOTHING_PERSISTED } from './persisted';

const dataDir = () => mkdtempSync(join(tmpdir(), 'auto-'));

describe("Auto's persisted state", () => {
  it('round-trips through its file: marks, return candidate, the subscription Auto is on for', async () => {
    const file = autoStateFile(dataDir());
    const state = { subscriptionId: 'A', excluded: { A: ['de'], B: ['b2'] }, returnCandidate: 'fi' };
    await file.save(state);
    expect((await file.load()).value).toEqual(state);
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toMatchObject({ version: 1 });
  });

  it("reads the first releases' file (no version) as it was, and writes it back with one", async () => {
    const dir = dataDir();
    const file = autoStateFile(dir);
    const written = { subscriptionId: 'A', excluded: { A: ['de'] }, returnCandidate: null };
    writeFileSync(file.path, JSON.stringify(written));
    const loaded = await file.load();
    expect(loaded).toMatchObject({ value: written, source: 'file', problem: null });
    await file.save(loaded.value);
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ version: 1, ...written });
  });

  it('a damaged file falls back to nothing remembered, and says so', async () => {
    const file = autoStateFile(dataDir());
    writeFileSync(file.path, JSON.stringify({ subscriptionId: 7, excluded: [] }));
    const loaded = await file.load();
    expect(loaded.value).toEqual(NOTHING_PERSISTED);
    expect(loaded.problem?.detail).toMatch(/unreadable/);
  });
});
