import { describe, expect, it } from 'vitest';
import { profileFromTable } from './testing/profile';
import { sampleServer } from './samples';
import { proberConfig } from './prober-config';
import { markOutbounds } from './transparent';
import { tunnelConfig } from './tunnel-config';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const v2ray434 = profileFromTable('v2ray', '4.34.0');
const base = { listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085 };

describe('system-wide capture in the tunnel config', () => {
  it('without it, nothing transparent and no marks (proxy modes change nothing)', () => {
    const config = tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434 }) as Json;
    expect(config.inbounds.map((i: Json) => i.tag)).toEqual(['http-in', 'socks-in', 'api']);
    expect(JSON.stringify(config.outbounds)).not.toContain('"mark"');
  });

  it.each([
    ['tproxy', 'tcp,udp'],
    ['redirect', 'tcp'],
  ] as const)('%s: loopback-only dokodemo-door inbounds following the original destination (%s), sniffing names', (method, network) => {
    const config = tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434, transparent: { port: 10850, method, mark: 0x5346, directPort: 10851 } }) as Json;
    const transparent = config.inbounds.filter((i: Json) => i.protocol === 'dokodemo-door' && i.tag !== 'api');
    expect(transparent.map((i: Json) => [i.tag, i.listen, i.port])).toEqual([
      ['transparent-in', '127.0.0.1', 10850],
      ['transparent-in-6', '::1', 10850],
    ]);
    for (const inbound of transparent) {
      expect(inbound.settings).toEqual({ network, followRedirect: true });
      expect(inbound.streamSettings).toEqual({ sockopt: { tproxy: method } });
      expect(inbound.sniffing).toEqual({ enabled: true, destOverride: ['http', 'tls'] });
    }
  });

  it('marks the server connection and direct traffic, keeping the transport, and leaves the blackhole alone', () => {
    const server = sampleServer('vmess', 'ws');
    const config = tunnelConfig({ ...base, server, core: v2ray434, transparent: { port: 10850, method: 'tproxy', mark: 255, directPort: 10851 } }) as Json;
    const byTag = Object.fromEntries(config.outbounds.map((o: Json) => [o.tag, o]));
    expect(byTag.proxy.streamSettings.sockopt).toEqual({ mark: 255 });
    expect(byTag.proxy.streamSettings.network).toBe('ws');
    expect(byTag.direct.streamSettings).toEqual({ sockopt: { mark: 255 } });
    expect(byTag.block.streamSettings).toBeUndefined();
  });

  it('sing-box’s TUN on Linux: the mark alone on every outbound that dials, no inbound or rule of TPROXY’s', () => {
    const config = tunnelConfig({ ...base, server: sampleServer('vmess', 'ws'), core: v2ray434, transparent: { mark: 0x5347 } }) as Json;
    const byTag = Object.fromEntries(config.outbounds.map((o: Json) => [o.tag, o]));
    expect(byTag.proxy.streamSettings).toMatchObject({ network: 'ws', sockopt: { mark: 0x5347 } });
    expect(byTag.direct.streamSettings).toEqual({ sockopt: { mark: 0x5347 } });
    expect(byTag.block.streamSettings).toBeUndefined();
    expect(config.inbounds.map((i: Json) => i.tag)).toEqual(['http-in', 'socks-in', 'api']);
    expect(JSON.stringify(config.routing.rules)).not.toContain('transparent-in');
    expect(JSON.stringify(config.routing.rules)).not.toContain('direct-in');
  });

  it('a loopback HTTP inbound leads to the direct outbound (the connectivity check asks the network, not the tunnel)', () => {
    const config = tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434, transparent: { port: 10850, method: 'tproxy', mark: 255, directPort: 10851 } }) as Json;
    expect(config.inbounds).toContainEqual({ tag: 'direct-in', listen: '127.0.0.1', port: 10851, protocol: 'http', settings: {} });
    expect(config.routing.rules).toContainEqual({ type: 'field', inboundTag: ['direct-in'], outboundTag: 'direct' });
    const plain = tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434 }) as Json;
    expect(JSON.stringify(plain)).not.toContain('direct-in');
  });

  it('a chained outbound dials through its (marked) upstream and keeps its own sockopt', () => {
    const marked = markOutbounds(
      [
        { tag: 'proxy', protocol: 'vmess', proxySettings: { tag: 'proxy-via' } },
        { tag: 'proxy-via', protocol: 'trojan', streamSettings: { sockopt: { dialerProxy: 'x' } } },
      ],
      7,
    ) as Json[];
    expect(marked[0]).toEqual({ tag: 'proxy', protocol: 'vmess', proxySettings: { tag: 'proxy-via' } });
    expect(marked[1]!.streamSettings.sockopt).toEqual({ dialerProxy: 'x', mark: 7 });
  });

  describe('IPv6 (system-wide/policy/ipv6-capture.ts)', () => {
    const xray = profileFromTable('xray', '26.3.27');
    const refusal = { type: 'field', inboundTag: ['transparent-in-6'], outboundTag: 'block' };
    const rulesOf = (core: typeof xray, ipv6: 'capture' | 'block' | undefined) =>
      (tunnelConfig({ ...base, server: sampleServer('vmess'), core, transparent: { port: 10850, method: 'tproxy', mark: 255, directPort: 10851, ...(ipv6 ? { ipv6 } : {}) } }) as Json).routing.rules as Json[];

    it.each([
      ['Xray', xray],
      ['v2ray', v2ray434],
    ])('%s: a server that carries IPv6 gets what the IPv6 inbound takes; one that does not has it refused (by inbound: sniffing may have put a name in the address’s place)', (_name, core) => {
      expect(rulesOf(core, 'capture')).not.toContainEqual(refusal);
      expect(rulesOf(core, 'block')).toContainEqual(refusal);
      expect(rulesOf(core, undefined)).toContainEqual(refusal);
    });

    it('captured DNS to an IPv6 resolver is still asked through the server (its rule comes first)', () => {
      const config = tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray, routing: { domainStrategy: 'AsIs', routes: [], hosts: {}, dns: { remote: '1.1.1.1', domestic: 'system', directDomains: [] } }, transparent: { port: 10850, method: 'tproxy', mark: 255, directPort: 10851, ipv6: 'block' } }) as Json;
      const rules = config.routing.rules as Json[];
      const dns = rules.findIndex((r) => r.port === '53');
      expect(dns).toBeGreaterThanOrEqual(0);
      expect(dns).toBeLessThan(rules.findIndex((r) => r.inboundTag?.[0] === 'transparent-in-6' && r.outboundTag === 'block'));
    });

    it('proxy modes are untouched: no transparent inbound, no refusal', () => {
      expect(JSON.stringify(tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray }))).not.toContain('transparent-in-6');
    });
  });

  it('the capture ports cannot collide with another inbound', () => {
    expect(() => tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434, transparent: { port: 10850, method: 'tproxy', mark: 1, directPort: 10808 } })).toThrow(
      'inbound port 10808 is used twice',
    );
  });

  it('the prober’s cores mark every probe outbound when asked, so probes leave beside the capture', () => {
    const entries = [{ server: sampleServer('vmess'), port: 20000 }, { server: sampleServer('trojan'), port: 20001 }];
    const marked = proberConfig({ entries, core: v2ray434, listen: '127.0.0.1', outboundMark: 0x5347 }) as Json;
    expect(marked.outbounds.map((o: Json) => [o.tag, o.streamSettings?.sockopt?.mark])).toEqual([
      ['block', undefined],
      ['probe-0', 0x5347],
      ['probe-1', 0x5347],
    ]);
    expect(JSON.stringify(proberConfig({ entries, core: v2ray434, listen: '127.0.0.1' }))).not.toContain('"mark"');
  });
});
