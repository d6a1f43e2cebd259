import { describe, expect, it } from 'vitest';
import { describeIssues, faultSchema, ipInfoSchema, networkSchema, subscriptionChangeSchema } from './control-schema';

describe('control API bodies', () => {
  it.each([
    [faultSchema, { fault: 'blackhole' }],
    [faultSchema, { fault: 'flap', periodMs: 2000, latencyMs: 80, jitterMs: 20 }],
    [faultSchema, { fault: 'slow', bandwidthKbps: 512 }],
    [faultSchema, { latencyMs: 0 }],
    [faultSchema, { fault: 'freeze', afterBytes: 16384 }],
    [faultSchema, { fault: 'throttle', bytesPerSecond: 12288 }],
    [networkSchema, { state: 'offline' }],
    [subscriptionChangeSchema, { servers: ['A1', 'B2'] }],
    [subscriptionChangeSchema, { servers: [] }],
    [subscriptionChangeSchema, { mode: 'huge' }],
    [ipInfoSchema, { mode: '429' }],
  ])('accepts %#', (schema, body) => {
    expect(schema.safeParse(body).success).toBe(true);
  });

  it.each([
    [faultSchema, { fault: 'meteor' }, 'fault'],
    [faultSchema, { latencyMs: -1 }, 'latencyMs'],
    [faultSchema, { latencyMs: 1.5 }, 'latencyMs'],
    [faultSchema, { periodMs: 10 }, 'periodMs'],
    [faultSchema, { fault: 'freeze', afterBytes: -1 }, 'afterBytes'],
    [faultSchema, { fault: 'throttle', bytesPerSecond: 0 }, 'bytesPerSecond'],
    [faultSchema, { fault: 'none', colour: 'red' }, 'colour'],
    [networkSchema, { state: 'down' }, 'state'],
    [networkSchema, {}, 'state'],
    [subscriptionChangeSchema, { servers: 'A1' }, ''],
    [subscriptionChangeSchema, { mode: 'ok', servers: [] }, ''],
    [ipInfoSchema, { mode: 'slow' }, 'mode'],
  ])('rejects %# and says what is wrong', (schema, body, field) => {
    const result = schema.safeParse(body);
    expect(result.success).toBe(false);
    if (!result.success) {
      const message = describeIssues(result.error);
      expect(message.length).toBeGreaterThan(0);
      if (field) expect(message).toContain(field);
    }
  });
});
