import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Logger } from '../log/logger';
import { CAPTURE_RECORD_FILE, CaptureRecordFile } from './record';
import { SystemWideCapture } from './system-wide';

const quiet = () => new Logger({ level: 'error', sinks: [] });

/** A capture whose helper launches are counted (each one a real /bin/true run). */
function countingCapture(extra: Partial<ConstructorParameters<typeof SystemWideCapture>[0]> = {}) {
  const launches = { count: 0 };
  const capture = new SystemWideCapture({
    dataDir: mkdtempSync(join(tmpdir(), 'syswide-')),
    logger: quiet(),
    launch: () => {
      launches.count++;
      return { file: '/bin/true', args: [] };
    },
    ...extra,
  });
  return { capture, launches };
}

/** The helper's one-shot removal, as the real binaries that stand for its outcome. */
const launchExiting = (file: '/bin/true' | '/bin/false') => () => ({ file, args: [] });

describe('system-wide capture', () => {
  it('a record left by a killed run is acted on at start: removal runs and the record goes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'syswide-'));
    await new CaptureRecordFile(dataDir).save({ version: 1, appliedAt: 1, method: 'tproxy', port: 10850, helperPid: 42 });
    const capture = new SystemWideCapture({ dataDir, logger: quiet(), launch: launchExiting('/bin/true') });
    expect(await capture.recoverAfterCrash()).toBe(true);
    expect(existsSync(join(dataDir, CAPTURE_RECORD_FILE))).toBe(false);
  });

  it('a removal that fails keeps the record for the next try', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'syswide-'));
    await new CaptureRecordFile(dataDir).save({ version: 1, appliedAt: 1, method: 'redirect', port: 10850, helperPid: null });
    const capture = new SystemWideCapture({ dataDir, logger: quiet(), launch: launchExiting('/bin/false') });
    expect(await capture.recoverAfterCrash()).toBe(false);
    expect((await new CaptureRecordFile(dataDir).read()).record?.method).toBe('redirect');
  });

  it('no record: nothing runs; an unreadable record still triggers the clean-up', async () => {
    const clean = mkdtempSync(join(tmpdir(), 'syswide-'));
    let launched = 0;
    const counting = () => {
      launched++;
      return { file: '/bin/true', args: [] };
    };
    expect(await new SystemWideCapture({ dataDir: clean, logger: quiet(), launch: counting }).recoverAfterCrash()).toBe(false);
    expect(launched).toBe(0);
    const damaged = mkdtempSync(join(tmpdir(), 'syswide-'));
    writeFileSync(join(damaged, CAPTURE_RECORD_FILE), '{"version":1,');
    expect(await new SystemWideCapture({ dataDir: damaged, logger: quiet(), launch: counting }).recoverAfterCrash()).toBe(true);
    expect(launched).toBe(1);
  });

  it('in the proxy modes the tunnel gets no transparent inbound and no helper is started', async () => {
    const { capture, launches } = countingCapture();
    capture.setMode('system-proxy');
    expect(await capture.transparentFor()).toBeNull();
    expect(launches.count).toBe(0);
  });

  it('system-wide mode on a system it has no capture for fails the connection with the reason, changing nothing', async () => {
    const capture = new SystemWideCapture({ dataDir: mkdtempSync(join(tmpdir(), 'syswide-')), logger: quiet(), launch: () => ({ file: '/bin/true', args: [] }), platform: 'freebsd' });
    capture.setMode('system-wide');
    await expect(capture.transparentFor()).rejects.toThrow('system-wide mode runs on Linux, Windows and macOS, not on freebsd; use system-proxy mode');
  });

  it('administrator rights refused: the connection fails saying so', async () => {
    // pkexec exits 126 when the user dismisses the dialog.
    const capture = new SystemWideCapture({ dataDir: mkdtempSync(join(tmpdir(), 'syswide-')), logger: quiet(), launch: () => ({ file: '/bin/sh', args: ['-c', 'exit 126'] }) });
    capture.setMode('system-wide');
    await expect(capture.transparentFor()).rejects.toThrow('administrator rights were not granted');
  });
});

describe('a core without CAP_NET_ADMIN', () => {
  it('refuses system-wide mode before asking for rights (the machine would be offline while "connected")', async () => {
    const { capture, launches } = countingCapture({ corePath: '/usr/bin/v2ray', coreCanCapture: async () => false });
    capture.setMode('system-wide');
    await expect(capture.transparentFor()).rejects.toThrow('sudo setcap cap_net_admin+ep /usr/bin/v2ray');
    expect(launches.count).toBe(0);
  });

  it('root or a core with the file capability may capture', async () => {
    const { coreCanCapture } = await import('./core-privilege');
    expect(await coreCanCapture('/usr/bin/v2ray', 0)).toBe(true);
    expect(await coreCanCapture('/bin/true', 1000)).toBe(false);
  });
});
