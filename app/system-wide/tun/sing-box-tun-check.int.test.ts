/**
 * The TUN configs this app writes, checked by the real sing-box it bundles (`sing-box check`):
 * every platform's shape, and every form of the remote resolver the DNS settings accept.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { labCore } from '../../core/testing/cores';
import { singBoxTunConfig } from './policy/sing-box-tun';

const exec = promisify(execFile);

describe('sing-box 1.14 accepts the TUN configs', () => {
  const singBox = labCore('sing-box');
  const dir = mkdtempSync(join(tmpdir(), 'tun-check-'));

  it.each([
    ['linux', 'https://1.1.1.1/dns-query', true],
    ['linux', 'https://dns.google/dns-query', false],
    ['linux', '203.0.113.53:5353', true],
    ['win32', undefined, true],
    ['darwin', '[2606:4700::1111]:53', false],
  ] as const)('%s, remote resolver %s, LAN direct %s', async (platform, remoteDns, bypassLan) => {
    const config = singBoxTunConfig({ platform, socksPort: 10808, directPort: 10899, corePath: '/opt/steadfast/core/xray', bypassLan, ...(remoteDns ? { remoteDns } : {}) });
    const file = join(dir, `${platform}-${String(bypassLan)}-${(remoteDns ?? 'default').replace(/\W/g, '_')}.json`);
    writeFileSync(file, JSON.stringify(config));
    const checked = await exec(singBox, ['check', '-c', file]).then(
      () => 'ok',
      (error: { stderr?: string }) => error.stderr ?? 'failed',
    );
    expect(checked).toBe('ok');
  });
});
