/**
 * What the window is told at start when nothing can connect: the core set in Settings is missing,
 * or is not a core. The problem carries its topic so the window can say it in the user's language.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import { createEngine, type Engine } from './engine';

let engine: Engine | null = null;
let dataDir = '';

afterEach(async () => {
  await engine?.stop();
  engine = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('no usable core at start', () => {
  it.each([
    ['a core path that does not exist', '/nonexistent/v2ray', /^The core set in Settings \(\/nonexistent\/v2ray\) does not exist/],
    ['a program that is not a core', '/bin/true', /^the core at \/bin\/true could not be used: /],
  ])('%s: the app starts and reports it as "no core"', async (_label, corePath, message) => {
    dataDir = mkdtempSync(join(tmpdir(), 'engine-no-core-'));
    engine = await createEngine({ dataDir, logger: memoryLogger('info').logger, watchNetwork: false, settingsOverrides: { corePath } });
    const snapshot = await engine.getSnapshot({});
    const about = snapshot.problems.filter((p) => p.topic.kind === 'no-core');
    expect(about).toHaveLength(1);
    expect(about[0]!.detail).toMatch(message);
    expect(snapshot.connection.error).toBe(about[0]!.detail);
  });
});
