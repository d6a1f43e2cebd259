import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConnectionMode, SystemWideCaptureMethod } from '../../shared/settings';
import { ChosenCapture } from './chosen-capture';
import { CaptureRecordFile } from './record';

/** A capture that notes what it is asked, answering as an idle one does. */
function noting(name: string, calls: string[]) {
  return {
    setMode: (mode: ConnectionMode) => void calls.push(`${name}.setMode(${mode})`),
    status: () => ({ active: false, method: null, detail: name, error: null }),
    directProxy: () => null,
    onChange: () => () => undefined,
    transparentFor: async () => {
      calls.push(`${name}.transparentFor`);
      return null;
    },
    ipv6Outdated: () => {
      calls.push(`${name}.ipv6Outdated`);
      return name === 'tun';
    },
    bind: () => () => undefined,
    recoverAfterCrash: async () => {
      calls.push(`${name}.recoverAfterCrash`);
      return true;
    },
    end: async () => void calls.push(`${name}.end`),
  };
}

function chosen(choice: () => SystemWideCaptureMethod) {
  const calls: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'chosen-capture-'));
  const capture = new ChosenCapture({ tproxy: noting('tproxy', calls), tun: noting('tun', calls) }, choice, dataDir);
  return { capture, calls, dataDir };
}

describe('Linux: the capture the settings choose', () => {
  it('only the chosen one is put in system-wide mode and asked before the core starts', async () => {
    const { capture, calls } = chosen(() => 'tun');
    capture.setMode('system-wide');
    await capture.transparentFor();
    expect(calls).toEqual(['tun.setMode(system-wide)', 'tun.transparentFor']);
    expect(capture.status().detail).toBe('tun');
  });

  it('a new choice takes effect at the next core start: the old capture is ended, the new one gets the mode', async () => {
    let method: SystemWideCaptureMethod = 'tproxy';
    const { capture, calls } = chosen(() => method);
    capture.setMode('system-wide');
    method = 'tun';
    await capture.transparentFor();
    expect(calls).toEqual(['tproxy.setMode(system-wide)', 'tproxy.setMode(proxy)', 'tproxy.end', 'tun.setMode(system-wide)', 'tun.transparentFor']);
  });

  it('asks the chosen one alone whether its IPv6 verdict is outdated', async () => {
    const { capture, calls } = chosen(() => 'tun');
    await capture.transparentFor();
    expect(capture.ipv6Outdated({} as never)).toBe(true);
    expect(calls).toEqual(['tun.transparentFor', 'tun.ipv6Outdated']);
  });

  it.each([
    ['tun', 'tun.recoverAfterCrash'],
    ['tproxy', 'tproxy.recoverAfterCrash'],
    ['redirect', 'tproxy.recoverAfterCrash'],
  ] as const)('after a crash, a record left by %s is cleaned up by the capture that wrote it', async (method, call) => {
    const { capture, calls, dataDir } = chosen(() => 'tproxy');
    await new CaptureRecordFile(dataDir).save({ version: 1, appliedAt: 1, method, port: 10808, helperPid: null });
    expect(await capture.recoverAfterCrash()).toBe(true);
    expect(calls).toEqual([call]);
  });

  it('no record: nothing to clean up, nothing asked', async () => {
    const { capture, calls } = chosen(() => 'tun');
    expect(await capture.recoverAfterCrash()).toBe(false);
    expect(calls).toEqual([]);
  });
});
