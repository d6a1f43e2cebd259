/**
 * A save that fails reaches the user: every file of the data folder hands its failure to the
 * engine's problem board, so the window lists it whether or not anything logs it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppProblem } from '../../shared/domain/problem';
import { memoryLogger } from '../log/logger';
import { createEngine, type Engine } from './engine';

let engine: Engine | null = null;
let dataDir = '';

afterEach(async () => {
  await engine?.stop();
  engine = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a failed settings save', () => {
  it('is in the window’s list of problems, with no log line carrying it there', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'engine-save-problem-'));
    const { logger, records } = memoryLogger('debug');
    engine = await createEngine({ dataDir, logger, watchNetwork: false, settingsOverrides: { corePath: '/nonexistent/v2ray' } });
    const heard: AppProblem[][] = [];
    engine.on('problems', (list) => heard.push(list));
    // A folder where the file must go: the next save fails.
    rmSync(join(dataDir, 'settings.json'));
    mkdirSync(join(dataDir, 'settings.json'));
    const logged = records.length;

    await expect(engine.setSettings({ theme: 'dark' })).rejects.toThrow(/could not save .*settings\.json: a folder is in the way/);

    const saveFailed = (list: AppProblem[]) => list.filter((p) => p.topic.kind === 'save-failed');
    const [shown] = saveFailed((await engine.getSnapshot({})).problems);
    expect(shown).toMatchObject({ severity: 'error', topic: { kind: 'save-failed', file: 'settings.json' }, detail: expect.stringMatching(/^Could not save settings\.json \(a folder is in the way\)/) });
    expect(saveFailed(heard.at(-1) ?? [])).toEqual([shown]);
    expect(records.slice(logged).filter((r) => /settings\.json/.test(r.message))).toEqual([]);
    expect((await engine.getSnapshot({})).settings.theme).toBe('system');
  });
});
