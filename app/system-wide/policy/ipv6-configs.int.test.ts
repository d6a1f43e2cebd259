/**
 * The IPv6 handling of system-wide mode in each core's own config check: Xray 26 and v2ray 4.34
 * (the tunnel core with its transparent inbounds, IPv6 captured or refused) and sing-box 1.14 (the
 * TUN front end, IPv6 refused, with and without per-app choice). A field a core does not know
 * would make it refuse the whole config at connect time; here it fails first.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PER_APP } from '../../../shared/per-app';
import { detectCore } from '../../core';
import { testConfig, withScratchDir } from '../../core/run-core';
import { sampleServer } from '../../core/samples';
import { labCore } from '../../core/testing/cores';
import { tunnelConfig } from '../../core/tunnel-config';
import { singBoxPerApp, withPerApp } from '../per-app/policy/sing-box-rules';
import { singBoxTunConfig, withIpv6Policy } from '../tun/policy/sing-box-tun';

describe('the cores accept their configs with IPv6 captured or refused', () => {
  it.each([
    ['xray', 'capture'],
    ['xray', 'block'],
    ['v2ray', 'capture'],
    ['v2ray', 'block'],
  ] as const)('%s, IPv6 %s', async (name, ipv6) => {
    const core = await detectCore(labCore(name));
    const config = tunnelConfig({ listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085, server: sampleServer('vmess'), core, transparent: { port: 10850, method: 'tproxy', mark: 0x5347, directPort: 10851, ipv6 } });
    const checked = await withScratchDir((dir) => testConfig(core, config, dir, `${name}-${ipv6}`));
    expect(checked).toEqual({ ok: true, message: expect.any(String) });
  }, 30_000);

  it.each(['off', 'bypass', 'only'] as const)('sing-box TUN, IPv6 refused, per-app %s', async (mode) => {
    const core = await detectCore(labCore('sing-box'));
    const perApp = singBoxPerApp({ ...DEFAULT_PER_APP, mode, bypass: ['uid:1001'], only: ['uid:1001'] }, 'linux');
    const config = withIpv6Policy(withPerApp(singBoxTunConfig({ platform: 'linux', socksPort: 10808, directPort: 10899, corePath: '/opt/steadfast/xray', bypassLan: true }), perApp), 'block');
    const checked = await withScratchDir((dir) => testConfig(core, config, dir, `sing-box-${mode}`));
    expect(checked.ok, checked.message).toBe(true);
  }, 30_000);
});
