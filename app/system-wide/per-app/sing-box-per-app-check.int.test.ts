/** The per-app TUN configs, checked by the real sing-box it bundles (`sing-box check`), on every platform's shape. */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { labCore } from '../../core/testing/cores';
import { singBoxTunConfig } from '../tun/policy/sing-box-tun';
import { singBoxPerApp, withPerApp } from './policy/sing-box-rules';

const exec = promisify(execFile);

describe('sing-box 1.14 accepts the per-app rules', () => {
  const singBox = labCore('sing-box');
  const dir = mkdtempSync(join(tmpdir(), 'per-app-check-'));
  const entries = {
    linux: ['/usr/bin/firefox', 'discord', 'uid:1001'],
    darwin: ['/Applications/Discord.app', '/usr/local/bin/curl', 'Telegram'],
    win32: ['C:\\Program Files\\Bank\\bank.exe', 'Discord.exe'],
  } as const;

  it.each([
    ['linux', 'bypass'],
    ['linux', 'only'],
    ['darwin', 'bypass'],
    ['darwin', 'only'],
    ['win32', 'bypass'],
    ['win32', 'only'],
  ] as const)('%s, %s', async (platform, mode) => {
    const list = [...entries[platform]];
    const perApp = singBoxPerApp({ mode, bypass: mode === 'bypass' ? list : [], only: mode === 'only' ? list : [] }, platform);
    const config = withPerApp(singBoxTunConfig({ platform, socksPort: 10808, directPort: 10899, corePath: '/opt/steadfast/core/xray', bypassLan: true }), perApp);
    const file = join(dir, `${platform}-${mode}.json`);
    writeFileSync(file, JSON.stringify(config));
    const checked = await exec(singBox, ['check', '-c', file]).then(
      () => 'ok',
      (error: { stderr?: string }) => error.stderr ?? 'failed',
    );
    expect(checked).toBe('ok');
  });
});
