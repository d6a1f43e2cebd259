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
  `vless://${UUID}@g.example.com:443?type=grpc&serviceName=svc&authority=auth.example.com&security=tls&sni=g.example.com#grpc-authority`,
  `vless://${UUID}@r.example.com:443?security=reality&sni=www.example.com&fp=chrome&pbk=58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA&sid=6b&pqv=${Buffer.alloc(1952, 7).toString('base64url')}&type=tcp#pq`,
  `vmess://${Buffer.from(JSON.stringify({ v: '2', ps: 'grpc', add: 'g.example.com', port: '443', id: UUID, aid: '0', net: 'grpc', type: 'multi', host: 'auth.example.com', path: 'svc', tls: 'tls', sni: 'g.example.com' })).toString('base64')}`,
  `vless://${UUID}@x.example.com:443?type=xhttp&path=%2Fx&host=cdn.example.com&mode=packet-up&extra=${pct('{"xPaddingBytes":"100-1000"}')}&security=tls#x&ipv6=1`,
  `trojan://${pct('p@ss:wörd')}@t.example.com:443?type=ws&path=%2Fws%3Fed%3D2048&host=cdn.example.com&security=tls&sni=cdn.example.com&allowInsecure=1#${pct('Москва ⚡')}`,
  `ss://${Buffer.from('chacha20-ietf-poly1305:secret pass').toString('base64url')}@s.example.com:8388#plain`,
  `ss://2022-blake3-aes-256-gcm:${pct(`${KEY_32_A}:${KEY_32_B}`)}@s.example.com:443#multi`,
  `ss://${Buffer.from('aes-256-gcm:pw').toString('base64url')}@s.example.com:443?plugin=${pct('v2ray-plugin;mode=websocket;tls;host=cdn.example.com;path=/ss')}#plugin`,
  `hysteria2://${pct('hy2:pa$$')}@hy.example.com:443-500/?sni=hy.example.com&insecure=1&obfs=salamander&obfs-password=obfs-secret&up=50&down=200#hop`,
  `tuic://${UUID}:${pct('tu ic')}@tu.example.com:443?congestion_control=bbr&udp_relay_mode=native&alpn=h3&sni=tu.example.com#tuic`,
  `wireguard://${pct(WG_PRIVATE)}@w.example.com:51820?publickey=${pct(WG_PUBLIC)}&address=${pct('10.0.0.2/32,fd00::2/128')}&reserved=1,2,3&mtu=1280#wg`,
  `socks5://user:${pct('p:w')}@127.0.0.1:1080#socks`,
  `socks://${Buffer.from('user:pw').toString('base64')}@socks.example.com:443?tls=1&sni=socks.example.com&allowInsecure=1#socks-tls`,
  `vless://${UUID}@cdn.example.com:443?type=ws&path=%2Fws&security=tls&sni=real.example.com&ech=${pct('AEz+DQBIAAAgACCrViCgiqG5CDnng32rNVP/N/AHtbqAaGCshOV24QXjMQAMAAEAAQABAAIAAQADABFkZWNveS5leGFtcGxlLmNvbQAA')}#ech`,
  `vmess://${Buffer.from(JSON.stringify({ v: '2', ps: 'ech', add: 'v.example.com', port: '443', id: UUID, aid: '0', net: 'ws', path: '/ws', tls: 'tls', sni: 'real.example.com', ech: 'AEz+DQBIAAAgACCrViCgiqG5CDnng32rNVP/N/AHtbqAaGCshOV24QXjMQAMAAEAAQABAAIAAQADABFkZWNveS5leGFtcGxlLmNvbQAA' })).toString('base64')}`,
  `hysteria2://pw@hy.example.com:443/?sni=real.example.com&ech=${pct('AEz+DQBIAAAgACCrViCgiqG5CDnng32rNVP/N/AHtbqAaGCshOV24QXjMQAMAAEAAQABAAIAAQADABFkZWNveS5leGFtcGxlLmNvbQAA')}#hy-ech`,
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

describe('certificate pins and the name to verify by survive the round trip', () => {
  const PIN = '54807151bd83523fee9081f08d708aecb59a3f3e75f154d7e96d35f51149ff8e';
  const PIN_2 = '5870bf1355c3b4ef09ad3daf8e1efe58cc01b4ec8141febe6f408e40339f17b8';
  const PINNED = [
    `vless://${UUID}@sub.domain.net:443?encryption=none&type=xhttp&security=tls&sni=sub.domain.net&host=sub.domain.net&path=/new&mode=packet-up&pcs=${PIN.toUpperCase()}&vcn=test.dom.com#TEST`,
    `vless://${UUID}@g.example.com:443?type=grpc&serviceName=g&security=tls&pcs=${PIN}~${PIN_2}#grpc`,
    `trojan://pw@t.example.com:443?type=ws&path=%2Fws&pcs=${pct('58:70:BF:13:55:C3:B4:EF:09:AD:3D:AF:8E:1E:FE:58:CC:01:B4:EC:81:41:FE:BE:6F:40:8E:40:33:9F:17:B8')}&vcn=real.example.com#t`,
    `hysteria2://pw@hy.example.com:443/?sni=hy.example.com&pinSHA256=${PIN}&vcn=hy.example.org#hy`,
    `hysteria2://pw@hy.example.com:443/?pcs=${PIN}~${PIN_2}#hy-two`,
    `vmess://${Buffer.from(JSON.stringify({ v: '2', ps: 'j', add: 'j.example.com', port: '443', id: UUID, aid: '0', net: 'ws', tls: 'tls', pcs: PIN, vcn: 'j.example.org' })).toString('base64')}`,
  ];

  it.each(PINNED)('%s', (link) => {
    const parsed = one(link);
    expect(parsed.security.pinnedCertSha256?.length).toBeGreaterThan(0);
    expect(one(shareLink(asServer(parsed)))).toEqual(parsed);
  });

  it("writes Xray's spelling: pcs joined with ~, vcn; Hysteria's pinSHA256 too when there is one pin", () => {
    const vless = shareLink(asServer(one(PINNED[1] as string)));
    expect(new URL(vless).searchParams.get('pcs')).toBe(`${PIN}~${PIN_2}`);
    const hy = new URL(shareLink(asServer(one(PINNED[3] as string))));
    expect([hy.searchParams.get('pcs'), hy.searchParams.get('pinSHA256'), hy.searchParams.get('vcn')]).toEqual([PIN, PIN, 'hy.example.org']);
    expect(new URL(shareLink(asServer(one(PINNED[4] as string)))).searchParams.get('pinSHA256')).toBeNull();
  });
});
