import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { UnsupportedServerError } from './errors';
import { profileFromTable } from './testing/profile';
import { probeInboundTag, proberConfig } from './prober-config';
import { sampleServer } from './samples';
import { tunnelConfig } from './tunnel-config';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const v2ray434 = profileFromTable('v2ray', '4.34.0');
const xray25 = profileFromTable('xray', '25.3.6');
const base = { listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085 };

describe('tunnelConfig', () => {
  const config = tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434 }) as Json;

  it('has HTTP and SOCKS5 (UDP on) inbounds on the listen address, tagged', () => {
    expect(config.inbounds.slice(0, 2)).toEqual([
      expect.objectContaining({ tag: 'http-in', listen: '127.0.0.1', port: 10809, protocol: 'http' }),
      expect.objectContaining({ tag: 'socks-in', listen: '127.0.0.1', port: 10808, protocol: 'socks', settings: expect.objectContaining({ udp: true, auth: 'noauth' }) }),
    ]);
  });

  it('routes everything to proxy (first outbound), keeps direct and block', () => {
    expect(config.outbounds.map((o: Json) => [o.tag, o.protocol])).toEqual([
      ['proxy', 'vmess'],
      ['direct', 'freedom'],
      ['block', 'blackhole'],
    ]);
  });

  it('exposes the stats API on 127.0.0.1:apiPort with outbound counters', () => {
    expect(config.api).toEqual({ tag: 'api', services: ['StatsService'] });
    expect(config.stats).toEqual({});
    expect(config.policy.system).toEqual({ statsOutboundUplink: true, statsOutboundDownlink: true, statsInboundUplink: true });
    expect(config.inbounds[2]).toEqual({ tag: 'api', listen: '127.0.0.1', port: 10085, protocol: 'dokodemo-door', settings: { address: '127.0.0.1' } });
    expect(config.routing.rules).toEqual([{ type: 'field', inboundTag: ['api'], outboundTag: 'api' }]);
  });

  it('refuses to put the proxies without a password anywhere but loopback', () => {
    for (const listen of ['0.0.0.0', '::', '192.168.1.5']) {
      expect(() => tunnelConfig({ ...base, listen, server: sampleServer('vmess'), core: v2ray434 })).toThrow(/loopback only/);
    }
    expect((tunnelConfig({ ...base, listen: '::1', server: sampleServer('vmess'), core: v2ray434 }) as Json).inbounds[1].settings.ip).toBe('::1');
  });

  it('logs at warning with no access log and no sniffing by default; level configurable', () => {
    expect(config.log).toEqual({ loglevel: 'warning', access: 'none' });
    expect(config.inbounds.some((i: Json) => 'sniffing' in i)).toBe(false);
    const debug = tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434, logLevel: 'debug', accessLog: true }) as Json;
    expect(debug.log).toEqual({ loglevel: 'debug' });
  });

  it('a chained server dials through its upstream outbound (v2ray 4: proxySettings; Xray: dialerProxy)', () => {
    const via = { ...sampleServer('trojan'), name: 'Upstream' } as Server;
    const v4 = tunnelConfig({ ...base, server: sampleServer('vmess'), via, core: v2ray434 }) as Json;
    expect(v4.outbounds.map((o: Json) => o.tag)).toEqual(['proxy', 'proxy-via', 'direct', 'block']);
    expect(v4.outbounds[0].proxySettings).toEqual({ tag: 'proxy-via' });
    const x = tunnelConfig({ ...base, server: sampleServer('vless', 'ws'), via, core: xray25 }) as Json;
    expect(x.outbounds[0].streamSettings.sockopt).toEqual({ dialerProxy: 'proxy-via' });
    expect(x.outbounds[1]).toMatchObject({ tag: 'proxy-via', protocol: 'trojan' });
  });

  it('refuses repeated or invalid ports (v2ray would share one port between two inbounds)', () => {
    expect(() => tunnelConfig({ ...base, socksPort: base.httpPort, server: sampleServer('vmess'), core: v2ray434 })).toThrow('inbound port 10809 is used twice');
    expect(() => tunnelConfig({ ...base, apiPort: 0, server: sampleServer('vmess'), core: v2ray434 })).toThrow('invalid inbound port 0');
  });

  it('refuses a server the core cannot run, naming it', () => {
    const wg = { ...sampleServer('wireguard'), name: 'WG Amsterdam' } as Server;
    expect(() => tunnelConfig({ ...base, server: wg, core: v2ray434 })).toThrow(new UnsupportedServerError('WG Amsterdam', 'not supported by v2ray 4.34.0: WireGuard needs Xray'));
  });
});

describe('proberConfig', () => {
  const servers = [sampleServer('vmess'), sampleServer('trojan'), sampleServer('shadowsocks')];

  it('gives every entry its own HTTP inbound routed by tag to its own outbound', () => {
    const c = proberConfig({ entries: servers.map((server, i) => ({ server, port: 20000 + i })), core: v2ray434, listen: '127.0.0.1' }) as Json;
    expect(c.inbounds).toEqual(servers.map((_, i) => ({ tag: `probe-in-${i}`, listen: '127.0.0.1', port: 20000 + i, protocol: 'http', settings: {} })));
    expect(c.outbounds.map((o: Json) => [o.tag, o.protocol])).toEqual([
      ['block', 'blackhole'],
      ['probe-0', 'vmess'],
      ['probe-1', 'trojan'],
      ['probe-2', 'shadowsocks'],
    ]);
    expect(c.routing.rules).toEqual(servers.map((_, i) => ({ type: 'field', inboundTag: [probeInboundTag(i)], outboundTag: `probe-${i}` })));
  });

  it('has no stats, no API, no sniffing, and logs at warning without an access log', () => {
    const c = proberConfig({ entries: [{ server: servers[0]!, port: 20000 }], core: v2ray434, listen: '127.0.0.1' }) as Json;
    expect(c).not.toHaveProperty('stats');
    expect(c).not.toHaveProperty('api');
    expect(c).not.toHaveProperty('policy');
    expect(c.inbounds[0]).not.toHaveProperty('sniffing');
    expect(c.log).toEqual({ loglevel: 'warning', access: 'none' });
  });

  it('a chained entry dials through its own copy of the upstream', () => {
    const via = { ...sampleServer('trojan'), name: 'Upstream' } as Server;
    const c = proberConfig({ entries: [{ server: servers[0]!, port: 20000 }, { server: servers[2]!, port: 20001, via }], core: v2ray434, listen: '127.0.0.1' }) as Json;
    expect(c.outbounds.map((o: Json) => o.tag)).toEqual(['block', 'probe-0', 'probe-1', 'probe-1-via']);
    expect(c.outbounds[2].proxySettings).toEqual({ tag: 'probe-1-via' });
  });

  it('refuses two entries on one port', () => {
    expect(() => proberConfig({ entries: [{ server: servers[0]!, port: 20000 }, { server: servers[1]!, port: 20000 }], core: v2ray434, listen: '127.0.0.1' })).toThrow('inbound port 20000 is used twice');
  });

  it('refuses an unsupported entry by name instead of dropping it', () => {
    const wg = { ...sampleServer('wireguard'), name: 'WG Paris' } as Server;
    expect(() => proberConfig({ entries: [{ server: wg, port: 1 }], core: v2ray434, listen: '127.0.0.1' })).toThrow('WG Paris: not supported by v2ray 4.34.0');
  });

  it('scales: 5,000 entries stay linear in size', () => {
    const entries = Array.from({ length: 5000 }, (_, i) => ({ server: { ...sampleServer('vmess'), id: `s${i}`, port: 1000 + (i % 60000) } as Server, port: 20000 + i }));
    const c = proberConfig({ entries, core: v2ray434, listen: '127.0.0.1' }) as Json;
    expect(c.inbounds).toHaveLength(5000);
    expect(c.routing.rules).toHaveLength(5000);
    expect(JSON.stringify(c).length / 5000).toBeLessThan(600);
  });
});
