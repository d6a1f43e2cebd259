import { describe, expect, it } from 'vitest';
import { type ConnectionMode, DEFAULT_SETTINGS, type Settings } from '../../shared/settings';
import { antiDpiFor, writableAntiDpi } from '../core/anti-dpi';
import type { CoreProfile } from '../core/capabilities';
import { profileFromTable } from '../core/testing/profile';
import { ServerIndex } from './server-index';
import { carryOut, type SettingsEffects, type SettingsTargets, settingsEffects } from './settings-changes';
import { FakeTunnel } from './testing/fake-tunnel';
import { subscriptionOf, vlessServer } from './testing/servers';
import { TunnelDriver } from './tunnel-driver';

const base: Settings = DEFAULT_SETTINGS;
const fragmentOn = { ...base.antiDpi, fragment: { ...base.antiDpi.fragment, enabled: true } };
const noEffect: SettingsEffects = { mode: null, ports: null, rewriteProbes: false, restartTunnel: false, routing: false, chains: { changed: [], reconnect: false } };
const loopbackPorts = (httpPort: number, socksPort: number) => ({ httpPort, socksPort, listen: '127.0.0.1', share: null });
const household = { username: 'sf-0a1b2c', password: 'pw-of-the-household' };
const sharingOn = { enabled: true, address: '192.168.1.5' };
const directRule = { ...base.routing, rules: [{ ip: ['192.0.2.7/32'], domain: [], outbound: 'direct' as const }] };
const shared = (address: string, httpPort = base.httpPort, socksPort = base.socksPort) => ({ ...loopbackPorts(httpPort, socksPort), share: { address, httpPort, socksPort, ...household } });

describe('settingsEffects', () => {
  it.each<[string, Partial<Settings>, Partial<Settings>, Partial<SettingsEffects>]>([
    ['nothing the cores use changed', {}, { logLevel: 'debug', language: 'fa' }, {}],
    ['proxy → system-wide: the core gets its transparent inbound', { mode: 'proxy' }, { mode: 'system-wide' }, { mode: 'system-wide', restartTunnel: true }],
    ['system-wide → system-proxy: the transparent inbound goes', { mode: 'system-wide' }, { mode: 'system-proxy' }, { mode: 'system-proxy', restartTunnel: true }],
    ['proxy → system-proxy: the same local proxy, no restart', { mode: 'proxy' }, { mode: 'system-proxy' }, { mode: 'system-proxy' }],
    ['Linux capture TPROXY → TUN while system-wide: the core starts again under the other capture', { mode: 'system-wide' }, { mode: 'system-wide', systemWideCapture: 'tun' }, { restartTunnel: true }],
    ['Linux capture changed in proxy mode: nothing runs it yet', { mode: 'proxy' }, { systemWideCapture: 'tun' }, {}],
    ['the fragment turned on: the tunnel and the probes carry it', {}, { antiDpi: fragmentOn }, { rewriteProbes: true, restartTunnel: true }],
    ['a server told to use anti-DPI on its own', {}, { antiDpi: { ...base.antiDpi, servers: { a: 'on' } } }, { rewriteProbes: true, restartTunnel: true }],
    ['a new HTTP port', {}, { httpPort: 18080 }, { ports: loopbackPorts(18080, base.socksPort), restartTunnel: true }],
    ['the old allowLan switch opens nothing any more', {}, { allowLan: true }, {}],
    ['a per-app list changed while system-wide: the capture is put in place anew', { mode: 'system-wide' }, { mode: 'system-wide', perApp: { mode: 'bypass', bypass: ['uid:1001'], only: [] } }, { restartTunnel: true }],
    ['a per-app list changed in proxy mode: nothing captures yet', {}, { perApp: { mode: 'bypass', bypass: ['uid:1001'], only: [] } }, {}],
    ['household sharing turned on: the LAN inbounds join, behind the credentials', {}, { sharing: sharingOn }, { ports: shared('192.168.1.5'), restartTunnel: true }],
    ['another sharing address', { sharing: sharingOn }, { sharing: { enabled: true, address: '10.0.0.4' } }, { ports: shared('10.0.0.4'), restartTunnel: true }],
    ['a new port moves the shared one with it', { sharing: sharingOn }, { sharing: sharingOn, httpPort: 18080 }, { ports: shared('192.168.1.5', 18080), restartTunnel: true }],
    ['household sharing turned off: loopback alone', { sharing: sharingOn }, { sharing: { ...sharingOn, enabled: false } }, { ports: loopbackPorts(base.httpPort, base.socksPort), restartTunnel: true }],
    ['a routing rule added: the routing is worked out again', {}, { routing: directRule }, { routing: true }],
    ['the DNS changed: so is the routing (the core writes both)', {}, { dns: { ...base.dns, remote: 'https://9.9.9.9/dns-query' } }, { routing: true }],
    ['the same routing sent again: nothing to work out', { routing: directRule }, { routing: { ...directRule } }, {}],
    ['a chain chosen for another server: it is measured again, the tunnel stays', {}, { chains: { b: 'c' } }, { chains: { changed: ['b'], reconnect: false } }],
    ['the chain of the tunnel’s server removed: the tunnel reconnects', { chains: { a: 'c' } }, { chains: {} }, { chains: { changed: ['a'], reconnect: true } }],
  ])('%s', (_name, before, after, expected) => {
    expect(settingsEffects({ ...base, ...before }, { ...base, ...after }, { credentials: () => household, currentServer: 'a' })).toEqual({ ...noEffect, ...expected });
  });
});

describe('settingsEffects: only what the tunnel’s core writes of the anti-DPI options restarts it', () => {
  // The tunnel is on server "a"; each core writes what it has.
  const writer = (core: CoreProfile) => (settings: Settings) => writableAntiDpi(antiDpiFor(settings.antiDpi, 'a'), core);
  const v2ray = profileFromTable('v2ray', '4.34.0');
  const xray = profileFromTable('xray', '25.3.6');
  const xrayWithoutNoise = profileFromTable('xray', '1.8.16');
  const noiseOn = { ...fragmentOn, noise: { ...fragmentOn.noise, enabled: true } };
  const ownForB = { ...base.antiDpi, servers: { b: { fragment: { ...base.antiDpi.fragment, enabled: true }, noise: base.antiDpi.noise } } };
  it.each<[string, CoreProfile, Settings['antiDpi'], Settings['antiDpi'], boolean]>([
    ['v2ray writes none: the fragment turned on leaves the connection alone', v2ray, base.antiDpi, fragmentOn, false],
    ['Xray writes it: the fragment turned on restarts the core', xray, base.antiDpi, fragmentOn, true],
    ['values of its own for another server leave the one in use alone', xray, base.antiDpi, ownForB, false],
    ['an Xray without noises: noise turned on changes nothing it writes', xrayWithoutNoise, fragmentOn, noiseOn, false],
  ])('%s', (_name, core, before, after, restartTunnel) => {
    expect(settingsEffects({ ...base, antiDpi: before }, { ...base, antiDpi: after }, { tunnelAntiDpi: writer(core) })).toEqual({ ...noEffect, rewriteProbes: true, restartTunnel });
  });
});

function world() {
  const tunnel = new FakeTunnel();
  const index = new ServerIndex();
  index.rebuild([subscriptionOf('s1', [vlessServer('a', 's1')])]);
  const driver = new TunnelDriver(() => tunnel, index, () => 'no core');
  const heard: string[] = [];
  const modes: ConnectionMode[] = [];
  const ports: unknown[] = [];
  const targets: SettingsTargets = {
    capture: { setMode: (mode) => modes.push(mode) },
    tunnel: { setPorts: (p) => ports.push(p) },
    restartTunnel: () => driver.reconnect(),
    rewriteProbes: () => heard.push('probes rewritten'),
    setLogLevel: (level) => heard.push(`log ${level}`),
    monitor: { setSettings: (m) => heard.push(`monitor every ${m.intervalMs} ms`) },
    auto: { reconfigure: (c) => heard.push(`auto stall ${c.stallThresholdMs} ms`) },
    reachability: { refresh: () => heard.push('reachability') },
    chainsChanged: (change) => heard.push(`chains of ${change.changed.join(', ')}`),
    afterEach: () => heard.push('after each'),
    warn: (line) => heard.push(line),
  };
  /** The change from the settings in force to `next`, carried out. */
  let previous = base;
  const change = (next: Settings) => {
    carryOut(settingsEffects(previous, next, { currentServer: driver.current() }), next, targets);
    previous = next;
  };
  return { tunnel, driver, change, heard, modes, ports };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('carryOut', () => {
  it('entering system-wide mode while connected starts the core again on the same server', async () => {
    const w = world();
    await w.driver.connect('a');
    w.change({ ...base, mode: 'system-wide' });
    await settle();
    expect(w.modes).toEqual(['system-wide']);
    expect(w.tunnel.starts.map((s) => s.serverId)).toEqual(['a', 'a']);
    expect(w.tunnel.state()).toMatchObject({ state: 'connected', serverId: 'a' });
  });

  it('a change the core does not use restarts nothing; disconnected, nothing starts at all', async () => {
    const w = world();
    await w.driver.connect('a');
    w.change({ ...base, mode: 'system-proxy' });
    await settle();
    expect(w.tunnel.starts).toHaveLength(1);
    await w.driver.disconnect();
    w.change({ ...base, mode: 'system-wide', httpPort: 18080 });
    await settle();
    expect(w.tunnel.starts).toHaveLength(1);
    // The next connect uses the new ports.
    expect(w.ports).toEqual([{ httpPort: 18080, socksPort: base.socksPort, listen: '127.0.0.1', share: null }]);
  });

  it('every service hears its part; the chains only when one changed', () => {
    const w = world();
    w.change({ ...base, logLevel: 'debug', antiDpi: fragmentOn, monitor: { ...base.monitor, intervalMs: 60_000 } });
    expect(w.heard).toEqual(['probes rewritten', 'log debug', 'monitor every 60000 ms', `auto stall ${base.stallThresholdMs} ms`, 'reachability', 'after each']);
    w.heard.length = 0;
    w.change({ ...base, logLevel: 'debug', antiDpi: fragmentOn, monitor: { ...base.monitor, intervalMs: 60_000 }, chains: { a: 'b' } });
    expect(w.heard.slice(-2)).toEqual(['chains of a', 'after each']);
  });

  it('a restart that fails is said in the log; the change stands', async () => {
    const w = world();
    await w.driver.connect('a');
    w.tunnel.refuse = 'the port 18080 is taken';
    w.change({ ...base, httpPort: 18080 });
    await settle();
    expect(w.heard).toContain('reconnect after the settings change failed: Error: the port 18080 is taken');
  });
});
