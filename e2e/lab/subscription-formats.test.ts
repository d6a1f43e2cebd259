import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { shareLink } from './share-links';
import { type V2rayServed, base64Links, clashConfig, plainLinks, renderSubscription, singBoxConfig, unservableFormat } from './subscription-formats';
import { TLS_SERVER_NAME, WS_HOST, buildWorld } from './world';

const world = buildWorld({ servers: 12, subscriptions: 1, seed: 3, latency: [20, 300] });
const served: V2rayServed[] = world.servers.map((spec, i) => ({ spec, dial: { host: spec.relayAddress, port: 40_000 + i } }));

describe('subscription formats', () => {
  it('plain: one share link per line', () => {
    const lines = plainLinks(served).trimEnd().split('\n');
    expect(lines).toEqual(served.map((s) => shareLink(s.spec, s.dial)));
  });

  it('base64: standard padded base64 of the plain list', () => {
    const body = base64Links(served);
    expect(body).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(body.length % 4).toBe(0);
    expect(Buffer.from(body, 'base64').toString('utf8')).toBe(plainLinks(served));
  });

  it('json: a sing-box config whose outbounds are real sing-box outbound objects', () => {
    const config = JSON.parse(singBoxConfig(served)) as { outbounds: Record<string, unknown>[] };
    const proxies = config.outbounds.filter((o) => ['vmess', 'vless', 'trojan', 'shadowsocks'].includes(o.type as string));
    expect(proxies).toHaveLength(served.length);
    for (const [i, o] of proxies.entries()) {
      const { spec, dial } = served[i] as V2rayServed;
      expect(o).toMatchObject({ type: spec.protocol, tag: spec.name, server: dial.host, server_port: dial.port });
      if (spec.protocol === 'vmess') expect(o).toMatchObject({ uuid: spec.uuid, security: 'auto', alter_id: 0 });
      if (spec.protocol === 'vless') expect(o).toMatchObject({ uuid: spec.uuid });
      if (spec.protocol === 'trojan') expect(o).toMatchObject({ password: spec.password });
      if (spec.protocol === 'shadowsocks') expect(o).toMatchObject({ method: spec.ssMethod, password: spec.password });
      if (spec.security === 'tls') expect(o.tls).toEqual({ enabled: true, server_name: TLS_SERVER_NAME, insecure: true });
      else expect(o.tls).toBeUndefined();
      if (spec.network === 'ws') expect(o.transport).toEqual({ type: 'ws', path: spec.wsPath, headers: { Host: WS_HOST } });
      else expect(o.transport).toBeUndefined();
    }
    const selector = config.outbounds.find((o) => o.type === 'selector');
    expect(selector?.outbounds).toEqual(served.map((s) => s.spec.name));
  });

  it('clash: a YAML proxies list with Clash field names', () => {
    const config = parseYaml(clashConfig(served)) as { proxies: Record<string, unknown>[]; 'proxy-groups': { proxies: string[] }[] };
    expect(config.proxies).toHaveLength(served.length);
    for (const [i, p] of config.proxies.entries()) {
      const { spec, dial } = served[i] as V2rayServed;
      expect(p).toMatchObject({ name: spec.name, server: dial.host, port: dial.port, type: spec.protocol === 'shadowsocks' ? 'ss' : spec.protocol });
      if (spec.protocol === 'vmess') expect(p).toMatchObject({ uuid: spec.uuid, alterId: 0, cipher: 'auto' });
      if (spec.protocol === 'shadowsocks') expect(p).toMatchObject({ cipher: spec.ssMethod, password: spec.password });
      if (spec.protocol === 'vless' && spec.security === 'tls') expect(p).toMatchObject({ tls: true, servername: TLS_SERVER_NAME, 'skip-cert-verify': true });
      if (spec.network === 'ws') expect(p).toMatchObject({ network: 'ws', 'ws-opts': { path: spec.wsPath, headers: { Host: WS_HOST } } });
    }
    expect(config['proxy-groups'][0]?.proxies).toEqual(served.map((s) => s.spec.name));
  });

  it('an empty list is an empty body in the link formats', () => {
    expect(plainLinks([])).toBe('');
    expect(base64Links([])).toBe('');
  });
});

describe('a subscription with servers of the modern block (share links only)', () => {
  const link = { link: 'tuic://00000000-0000-4000-8000-000000000000:pw@127.3.0.8:4000#RC8' };

  it('lists their links as they are, in base64 and plain', () => {
    expect(plainLinks([served[0]!, link]).trimEnd().split('\n')).toEqual([shareLink(served[0]!.spec, served[0]!.dial), link.link]);
    expect(Buffer.from(renderSubscription('base64', [link]).body, 'base64').toString('utf8')).toBe(`${link.link}\n`);
    expect(unservableFormat('base64', [link])).toBeNull();
  });

  it.each(['json', 'clash'] as const)('%s is refused with a reason, never served without them', (format) => {
    expect(unservableFormat(format, [served[0]!, link])).toMatch(`format ${format} is not served for servers hosted by Xray or sing-box`);
    expect(unservableFormat(format, [served[0]!])).toBeNull();
  });
});
