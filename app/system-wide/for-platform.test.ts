import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Logger } from '../log/logger';
import type { SystemWideCaptureMethod } from '../../shared/settings';
import { ChosenCapture } from './chosen-capture';
import { systemWideFor } from './for-platform';
import { SystemWideCapture } from './system-wide';
import { TunCapture } from './tun/tun-capture';

describe('system-wide mode by platform', () => {
  const base = () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'for-platform-'));
    return { dataDir, runtimeDir: join(dataDir, 'runtime'), logger: new Logger({ level: 'error', sinks: [] }), launch: () => ({ file: '/bin/true', args: [] }) };
  };

  it.each([
    ['linux', 'the choice of the nftables capture and sing-box’s TUN', ChosenCapture],
    ['win32', 'sing-box’s TUN', TunCapture],
    ['darwin', 'sing-box’s TUN', TunCapture],
    ['freebsd', 'the Linux capture, which refuses', SystemWideCapture],
  ] as const)('%s gets %s', (platform, _what, kind) => {
    expect(systemWideFor({ ...base(), platform })).toBeInstanceOf(kind);
  });

  it('Linux: the capture the settings name at each core start runs, and the other is ended', async () => {
    let chosen: SystemWideCaptureMethod = 'tun';
    const emptyPath = mkdtempSync(join(tmpdir(), 'no-sing-box-'));
    const capture = systemWideFor({ ...base(), platform: 'linux', corePath: '/bin/true', coreCanCapture: async () => true, linuxCapture: () => chosen });
    capture.setMode('system-wide');
    const path = process.env.PATH;
    process.env.PATH = emptyPath;
    try {
      await expect(capture.transparentFor()).rejects.toThrow('needs the TUN engine sing-box');
    } finally {
      process.env.PATH = path;
    }
    chosen = 'tproxy';
    // The nftables capture starts its helper (here one that leaves at once).
    await expect(capture.transparentFor()).rejects.toThrow('the capture helper exited');
  });

  it('elsewhere the mode is refused with the reason', async () => {
    const capture = systemWideFor({ ...base(), platform: 'freebsd' });
    capture.setMode('system-wide');
    await expect(capture.transparentFor()).rejects.toThrow('not on freebsd');
  });
});
