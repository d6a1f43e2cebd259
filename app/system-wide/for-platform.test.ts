import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Logger } from '../log/logger';
import { systemWideFor } from './for-platform';
import { SystemWideCapture } from './system-wide';
import { TunCapture } from './tun/tun-capture';

describe('system-wide mode by platform', () => {
  const base = () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'for-platform-'));
    return { dataDir, runtimeDir: join(dataDir, 'runtime'), logger: new Logger({ level: 'error', sinks: [] }), launch: () => ({ file: '/bin/true', args: [] }) };
  };

  it.each([
    ['linux', 'the nftables capture', SystemWideCapture],
    ['win32', 'sing-box’s TUN', TunCapture],
    ['darwin', 'sing-box’s TUN', TunCapture],
    ['freebsd', 'the Linux capture, which refuses', SystemWideCapture],
  ] as const)('%s gets %s', (platform, _what, kind) => {
    expect(systemWideFor({ ...base(), platform })).toBeInstanceOf(kind);
  });

  it('elsewhere the mode is refused with the reason', async () => {
    const capture = systemWideFor({ ...base(), platform: 'freebsd' });
    capture.setMode('system-wide');
    await expect(capture.transparentFor()).rejects.toThrow('not on freebsd');
  });
});
