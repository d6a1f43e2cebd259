import { describe, expect, it } from 'vitest';
import { invokeSchemas } from './ipc/contract';
import { DEFAULT_SETTINGS, migrateStoredSettings, settingsPatchSchema, settingsSchema, storedSettingsSchema } from './settings';

describe('settings schemas', () => {
  it('a patch carries only the fields it names (no defaults filled in)', () => {
    expect(settingsPatchSchema.parse({ httpPort: 10900 })).toEqual({ httpPort: 10900 });
    expect(settingsPatchSchema.parse({ monitor: { workers: 3 } })).toEqual({ monitor: { workers: 3 } });
  });

  it('a patch still validates what it names and refuses unknown fields', () => {
    expect(settingsPatchSchema.safeParse({ httpPort: 0 }).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ monitor: { workers: 0 } }).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ colour: 'red' }).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ monitor: { speed: 1 } }).success).toBe(false);
  });

  it('test and IP-info URLs must be http(s)', () => {
    expect(settingsSchema.safeParse({ monitor: { urls: ['file:///etc/passwd'] } }).success).toBe(false);
    expect(settingsSchema.safeParse({ monitor: { ipInfoUrl: 'javascript:alert(1)' } }).success).toBe(false);
    expect(settingsSchema.safeParse({ monitor: { urls: ['http://127.0.0.1:1/generate_204'] } }).success).toBe(true);
  });

  it('a subscription URL must be http(s)', () => {
    expect(invokeSchemas.addSubscription.safeParse({ url: 'file:///etc/passwd' }).success).toBe(false);
    expect(invokeSchemas.addSubscription.safeParse({ url: 'https://example.com/sub' }).success).toBe(true);
  });

  it('the defaults are the spec values', () => {
    expect(DEFAULT_SETTINGS.stallThresholdMs).toBe(5000);
    expect(DEFAULT_SETTINGS.monitor).toMatchObject({
      intervalMs: 300_000,
      workers: 10,
      urlTestTimeoutMs: 5000,
      onDemandTimeoutsMs: [1000, 3000, 10_000],
      idleTimeoutMs: 600_000,
      debounceWindowMs: 500,
      urls: ['https://www.gstatic.com/generate_204'],
      ipInfoUrl: '',
    });
  });

  it.each([
    ['system proxy on becomes system-proxy', { systemProxy: true, httpPort: 10900 }, 'system-proxy', { mode: 'system-proxy', httpPort: 10900 }],
    ['system proxy off becomes proxy, whatever the host default', { systemProxy: false }, 'system-proxy', { mode: 'proxy' }],
    ['a file that never said takes the host default', { httpPort: 10900 }, 'system-proxy', { mode: 'system-proxy', httpPort: 10900 }],
    ['a file with a mode keeps it (a stray systemProxy is dropped)', { mode: 'system-wide', systemProxy: true }, 'proxy', { mode: 'system-wide' }],
    ['something that is not a document is left to the schema', 'garbage', 'proxy', 'garbage'],
  ] as const)('migration: %s', (_name, raw, defaultMode, expected) => {
    expect(migrateStoredSettings(raw, defaultMode)).toEqual(expected);
  });

  it('a stored file is read through the migration; an unknown mode is refused', () => {
    expect(storedSettingsSchema('proxy').parse({ systemProxy: true })).toEqual({ ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    expect(storedSettingsSchema('proxy').safeParse({ mode: 'tun' }).success).toBe(false);
    expect(DEFAULT_SETTINGS.mode).toBe('proxy');
  });

  it('system-wide capture on Linux: TPROXY unless the TUN is chosen; anything else is refused', () => {
    expect(DEFAULT_SETTINGS.systemWideCapture).toBe('tproxy');
    expect(storedSettingsSchema('proxy').parse({ systemWideCapture: 'tun' }).systemWideCapture).toBe('tun');
    expect(storedSettingsSchema('proxy').safeParse({ systemWideCapture: 'redirect' }).success).toBe(false);
  });
});
