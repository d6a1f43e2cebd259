import { describe, expect, it } from 'vitest';
import type { ParsedServer, Server } from '../../../shared/domain/server';
import { parseLinkList } from '../parse/links';
import { sampleLinks } from '../testing/sample-links';
import { shareLink } from './share-link';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const KEY_32_A = 'sL8zmnxyjPS/2yCNOjGTYE+MNT0d1n7qyX5MTGyjmPQ=';
const KEY_32_B = 'Sfx3vWWTWk01ql38iZXgJjPChVYqC7hPjzm8MLsarHQ=';
const WG_PRIVATE = 'AN0uPeVcrocvIXzzOfHKS+GOWYIK4+ryYpzqA+ExEWs=';
const WG_PUBLIC = 'bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=';
const pct = encodeURIComponent;

function one(link: string): ParsedServer {
  const result = parseLinkList(link);
  if (!result.servers[0]) throw new Error(`${link}: ${result.rejected[0]?.reason}`);
  return result.servers[0];
}
const asServer = (parsed: ParsedServer): Server => ({ ...parsed, id: 'x', subscriptionId: 's' }) as Server;

const CASES = [
  `vless://${UUID}@91.107.130.12:443?encryption=none&flow=xtls-rprx-vision&security=reality&sni=www.speedtest.net&fp=chrome&pbk=58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA&sid=6ba85179e30d4fc2&spx=%2F&type=tcp#${pct('🇮🇷 ایران')}`,
  `vless://${UUID}@[2001:db8::1]:8443?type=grpc&serviceName=svc&mode=multi&security=tls&sni=g.example.com&alpn=h2#g`,
  `vless://${UUID}@x.example.com:443?type=xhttp&path=%2Fx&host=cdn.example.com&mode=packet-up&extra=${pct('{"xPaddingBytes":"100-1000"}')}&security=tls#x&ipv6=1`,
  `trojan://${pct('p@ss:wörd')}@t.example.com:443?type=ws&path=%2Fws%3Fed%3D2048&host=cdn.example.com&security=tls&sni=cdn.example.com&allowInsecure=1#${pct('Москва ⚡')}`,
  `ss://${Buffer.from('chacha20-ietf-poly1305:secret pass').toString('base64url')}@s.example.com:8388#plain`,
  `ss://2022-blake3-aes-256-gcm:${pct(`${KEY_32_A}:${KEY_32_B}`)}@s.example.com:443#multi`,
  `ss://${Buffer.from('aes-256-gcm:pw').toString('base64url')}@s.example.com:443?plugin=${pct('v2ray-plugin;mode=websocket;tls;host=cdn.example.com;path=/ss')}#plugin`,
  `hysteria2://${pct('hy2:pa$$')}@hy.example.com:443-500/?sni=hy.example.com&insecure=1&obfs=salamander&obfs-password=obfs-secret&up=50&down=200#hop`,
  `tuic://${UUID}:${pct('tu ic')}@tu.example.com:443?congestion_control=bbr&udp_relay_mode=native&alpn=h3&sni=tu.example.com#tuic`,
  `wireguard://${pct(WG_PRIVATE)}@w.example.com:51820?publickey=${pct(WG_PUBLIC)}&address=${pct('10.0.0.2/32,fd00::2/128')}&reserved=1,2,3&mtu=1280#wg`,
  `socks5://user:${pct('p:w')}@127.0.0.1:1080#socks`,
  `https://user:pw@proxy.example.com:8443#https-proxy`,
  `vmess://${Buffer.from(JSON.stringify({ v: '2', ps: 'kcp', add: 'k.example.com', port: 443, id: UUID, aid: 0, scy: 'auto', net: 'kcp', type: 'wechat-video', path: 'seed1' })).toString('base64')}`,
  `vmess://${Buffer.from(JSON.stringify({ v: '2', ps: '🇩🇪 ws', add: 'v.example.com', port: '443', id: UUID, aid: '0', scy: 'aes-128-gcm', net: 'ws', type: 'none', host: 'cdn.example.com', path: '/ws', tls: 'tls', sni: 'cdn.example.com', alpn: 'h2,http/1.1', fp: 'chrome' })).toString('base64')}`,
];

describe('share links read back as the same server', () => {
  it.each(CASES)('%s', (link) => {
    const parsed = one(link);
    const shared = shareLink(asServer(parsed));
    expect(one(shared)).toEqual(parsed);
  });

  it('so does every link of a generated subscription', () => {
    for (const link of sampleLinks(300, 7)) {
      const parsed = one(link);
      expect(one(shareLink(asServer(parsed))), link).toEqual(parsed);
    }
  });
});
