import { describe, expect, it } from 'vitest';
import { invokeSchemas } from './ipc/contract';
import { DEFAULT_SETTINGS, settingsPatchSchema, settingsSchema } from './settings';

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
});
