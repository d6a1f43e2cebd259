import { describe, expect, it } from 'vitest';
import { coreRunArgs, coreRunEnvironment } from './run-core';

describe('how each core is started', () => {
  it.each([
    // Xray's freedom splice counted a direct download only when its connection ended (routing.int.test.ts).
    { family: 'xray', version: '26.3.27', args: ['run', '-c', 'c.json'], env: { XRAY_BUF_SPLICE: 'disable' } },
    { family: 'v2ray', version: '4.34.0', args: ['-config', 'c.json'], env: {} },
    { family: 'v2ray', version: '5.16.1', args: ['run', '-c', 'c.json'], env: {} },
    { family: 'sing-box', version: '1.14.1', args: ['run', '-c', 'c.json'], env: {} },
  ] as const)('$family $version', ({ family, version, args, env }) => {
    expect(coreRunArgs({ family, version }, 'c.json')).toEqual(args);
    expect(coreRunEnvironment({ family })).toEqual(env);
  });
});
