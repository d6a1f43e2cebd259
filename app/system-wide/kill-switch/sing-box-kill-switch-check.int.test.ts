/**
 * The TUN configs with the kill switch's limits (policy/platform-kill-switch.ts), checked by the
 * real sing-box the app bundles (`sing-box check`): the shape Windows and macOS would run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { labCore } from '../../core/testing/cores';
import { singBoxTunConfig } from '../tun/policy/sing-box-tun';
import { withKillSwitch } from './policy/platform-kill-switch';

const exec = promisify(execFile);

describe('sing-box 1.14 accepts the TUN configs with the kill switch', () => {
  const singBox = labCore('sing-box');
  const dir = mkdtempSync(join(tmpdir(), 'kill-switch-check-'));

  it.each([
    ['win32', false, ['198.51.100.254', '2001:db8::1']],
    ['darwin', true, ['198.51.100.254']],
    ['linux', false, []],
  ] as const)('%s, LAN allowed %s, servers %j', async (platform, allowLan, servers) => {
    const tun = singBoxTunConfig({ platform, socksPort: 10808, directPort: 10899, corePath: '/opt/steadfast/core/xray', bypassLan: true }) as Parameters<typeof withKillSwitch>[0];
    const file = join(dir, `${platform}-${String(allowLan)}.json`);
    writeFileSync(file, JSON.stringify(withKillSwitch(tun, { servers, allowLan })));
    const checked = await exec(singBox, ['check', '-c', file]).then(
      () => 'ok',
      (error: { stderr?: string }) => error.stderr ?? 'failed',
    );
    expect(checked).toBe('ok');
  });
});
