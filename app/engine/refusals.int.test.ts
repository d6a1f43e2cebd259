/**
 * The engine's refusals carry a code beside their English sentence, so the window can say them in
 * the user's language (shared/domain/refusal.ts): here through the whole engine, as the IPC sees it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validationOfError } from '../../shared/domain/refusal';
import { refusalFromWire, refusalToWire } from '../../shared/ipc/answer';
import { memoryLogger } from '../log/logger';
import { createEngine, type Engine } from './engine';

let engine: Engine;
let dataDir = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'engine-refusals-'));
  engine = await createEngine({ dataDir, logger: memoryLogger('info').logger, watchNetwork: false });
});

afterAll(async () => {
  await engine?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the engine refuses with a code and its words', () => {
  it.each([
    ['Connect with no server and no Auto', () => engine.connect({}), 'no-server-chosen', 'choose a server to connect to, or turn Auto on for a subscription'],
    ['Connect to a server that is gone', () => engine.connect({ serverId: 'gone' }), 'no-such-server', 'no server with id "gone" (it may have left its subscription)'],
    ['sharing a subscription that is gone', () => engine.shareLink({ subscriptionId: 'gone' }), 'no-such-subscription', 'no subscription with id "gone"'],
    ['reading the screen outside the desktop app', () => engine.captureScreen({}), 'screen-reading-unavailable', 'reading the screen is possible only in the desktop app'],
    ['the Lab outside the demo', () => engine.labControl({ action: 'network', state: 'offline' }), 'lab-unavailable', 'the Lab panel exists only in the demo'],
  ] as const)('%s', async (_label, run, code, message) => {
    await expect(run()).rejects.toMatchObject({ name: 'EngineRefusal', code, message });
  });

  it('a settings value the settings refuse: its problem as a topic the window words, across the wire as the page gets it', async () => {
    const refused = await engine.setSettings({ routing: { rules: [{ ip: ['10.0.0.0/40'], domain: [], outbound: 'direct' }] } } as never).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'EngineRefusal', code: 'invalid-setting', message: 'invalid setting routing, rule 1, ip 1: "10.0.0.0/40" has a prefix length outside 0-32' });
    const arrived = refusalFromWire(JSON.parse(JSON.stringify(refusalToWire(refused))));
    expect(validationOfError(arrived)).toEqual({
      topic: 'prefix-length',
      params: { value: '10.0.0.0/40', max: 32 },
      path: ['routing', 'rules', 0, 'ip', 0],
      english: 'invalid setting routing, rule 1, ip 1: "10.0.0.0/40" has a prefix length outside 0-32',
    });
  });
});
