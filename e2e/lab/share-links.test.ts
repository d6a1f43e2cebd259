import { describe, expect, it } from 'vitest';
import { shareLink } from './share-links';
import { type ServerSpec, TLS_SERVER_NAME, WS_HOST, buildWorld } from './world';

const world = buildWorld({ servers: 12, subscriptions: 3, seed: 7, latency: [20, 300] });
const dial = { host: '127.0.2.9', port: 40123 };
const find = (pred: (s: ServerSpec) => boolean) => world.servers.find(pred) as ServerSpec;

describe('share links', () => {
  it('vmess: base64 of the v2rayN JSON with every field', () => {
    const server = find((s) => s.protocol === 'vmess' && s.network === 'ws');
    const link = shareLink(server, dial);
    expect(link.startsWith('vmess://')).toBe(true);
    const body = JSON.parse(Buffer.from(link.slice(8), 'base64').toString('utf8'));
    expect(Object.keys(body)).toEqual(['v', 'ps', 'add', 'port', 'id', 'aid', 'scy', 'net', 'type', 'host', 'path', 'tls', 'sni']);
    expect(body).toMatchObject({ v: '2', ps: server.name, add: dial.host, id: server.uuid, scy: 'auto', net: 'ws', host: WS_HOST, path: server.wsPath, tls: '' });
    expect(Number(body.port)).toBe(dial.port);
    expect(Number(body.aid)).toBe(0);
  });

  it('vmess: port and aid come as strings on some servers and numbers on others', () => {
    const kinds = world.servers.filter((s) => s.protocol === 'vmess').map((s) => typeof JSON.parse(Buffer.from(shareLink(s, dial).slice(8), 'base64').toString()).port);
    expect(new Set(kinds)).toEqual(new Set(['string', 'number']));
  });

  it('vless: uuid@host:port with encryption, type and security, the name percent-encoded', () => {
    const server = find((s) => s.protocol === 'vless' && s.network === 'tcp' && s.security === 'none');
    const url = new URL(shareLink(server, dial));
    expect(url.protocol).toBe('vless:');
    expect(url.username).toBe(server.uuid);
    expect(url.hostname).toBe(dial.host);
    expect(Number(url.port)).toBe(dial.port);
    expect(Object.fromEntries(url.searchParams)).toEqual({ encryption: 'none', type: 'tcp', security: 'none' });
    expect(decodeURIComponent(url.hash.slice(1))).toBe(server.name);
  });

  it('TLS servers carry sni and allowInsecure=1; WebSocket ones path and host', () => {
    const server = find((s) => s.protocol === 'trojan' && s.network === 'ws' && s.security === 'tls');
    const url = new URL(shareLink(server, dial));
    expect(url.username).toBe(server.password);
    expect(Object.fromEntries(url.searchParams)).toEqual({ type: 'ws', path: server.wsPath, host: WS_HOST, security: 'tls', sni: TLS_SERVER_NAME, allowInsecure: '1' });
  });

  it('trojan without TLS says security=none', () => {
    const server = find((s) => s.protocol === 'trojan' && s.security === 'none');
    expect(new URL(shareLink(server, dial)).searchParams.get('security')).toBe('none');
  });

  it('ss: SIP002 with base64url(method:password) user info', () => {
    const server = find((s) => s.protocol === 'shadowsocks');
    const link = shareLink(server, dial);
    const match = /^ss:\/\/([A-Za-z0-9_-]+)@([\d.]+):(\d+)#(.+)$/.exec(link);
    expect(match).not.toBeNull();
    const [, userinfo, host, port, name] = match as RegExpExecArray;
    expect(Buffer.from(userinfo as string, 'base64url').toString()).toBe(`${server.ssMethod}:${server.password}`);
    expect([host, Number(port), decodeURIComponent(name as string)]).toEqual([dial.host, dial.port, server.name]);
  });

  it('every name survives its link, emoji, Persian and Russian included', () => {
    for (const server of world.servers) {
      const link = shareLink(server, dial);
      const name = server.protocol === 'vmess' ? JSON.parse(Buffer.from(link.slice(8), 'base64').toString()).ps : decodeURIComponent(link.slice(link.indexOf('#') + 1));
      expect(name).toBe(server.name);
      expect(link).not.toMatch(/\s/);
    }
  });
});
