import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { antiDpiSettingsSchema } from '../../shared/settings';
import { antiDpiFor } from '../core/anti-dpi';
import { sampleServer } from '../core/samples';
import { profileFromTable, SING_BOX_HERE_TAGS } from '../core/testing/profile';
import { memoryLogger } from '../log/logger';
import { CarrierProber } from './carrier-prober';

// Cores that cannot start (no binary at these paths): what the probers say before and without one.
const xray = profileFromTable('xray', '26.3.27', '/nonexistent/xray');
const singBox = profileFromTable('sing-box', '1.14.1', '/nonexistent/sing-box', SING_BOX_HERE_TAGS);
const named = (name: string): Server => ({ ...sampleServer('anytls'), id: name, name });
const settings = antiDpiSettingsSchema.parse({ fragment: { enabled: true, packets: 'tlshello', length: '100-200', interval: '10-20' }, servers: { quiet: 'off' } });

let runtimeDir: string;
let prober: CarrierProber | null = null;

beforeEach(async () => {
  runtimeDir = await mkdtemp(join(tmpdir(), 'carrier-prober-'));
});

afterEach(async () => {
  await prober?.close();
  prober = null;
  await rm(runtimeDir, { recursive: true, force: true });
});

describe('a carried server whose anti-DPI options go through the main prober core', () => {
  it('is not probed while that core is not running (a direct probe would test another path); one set to off is its carrier’s prober’s', async () => {
    const log = memoryLogger('debug');
    prober = new CarrierProber({ core: xray, carriers: [singBox], runtimeDir, logger: log.logger, rebuildDebounceMs: 1, antiDpi: (id) => antiDpiFor(settings, id) });
    prober.setServers([named('AT'), named('quiet')]);
    await prober.settled();
    expect(prober.readiness('AT')).toEqual({ ready: false, reason: 'its anti-DPI options are applied by the main prober core, which is not running' });
    expect(await prober.probe('AT', { url: 'http://example.com/', timeoutMs: 1000 })).toEqual({
      ok: false,
      error: { kind: 'unknown', message: 'its anti-DPI options are applied by the main prober core, which is not running' },
    });
    expect(prober.readiness('quiet')).toMatchObject({ ready: false, reason: expect.stringContaining('the prober core is not running') });
    expect(log.lines.some((l) => l.includes('prober core could not start'))).toBe(true);
  });
});
