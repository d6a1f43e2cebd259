import { describe, expect, it } from 'vitest';
import type { ParsedServer } from '../../../../shared/domain/server';
import { parseLinkList } from './index';

// Real-world-shaped share links, written by hand the way provider panels and apps export them.
const UUID_1 = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const UUID_2 = 'ca578b3b-38d5-4ec0-b9de-9af751aa5146';
const UUID_3 = '95ca8285-014b-40c8-b9ca-afab0619c23e';
const PBK = '58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA';
const KEY_16 = 'CPS2fV7CK/2h0ztSJLtcKQ==';
const KEY_32_A = 'sL8zmnxyjPS/2yCNOjGTYE+MNT0d1n7qyX5MTGyjmPQ=';
const KEY_32_B = 'Sfx3vWWTWk01ql38iZXgJjPChVYqC7hPjzm8MLsarHQ=';
const WG_PRIVATE = 'AN0uPeVcrocvIXzzOfHKS+GOWYIK4+ryYpzqA+ExEWs=';
const WG_PUBLIC = 'bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=';
const WG_PSK = 'WtL40F7pN+iJmnh3uy3ZGDDWCoORTcvdTrIY7uOsFn4=';
/** An ML-DSA-65 public key's size in base64url, as REALITY's `pqv` carries one (`xray mldsa65`). */
const MLDSA65_KEY = Buffer.alloc(1952, 7).toString('base64url');

const PERSIAN = '🇮🇷 ایران - همراه اول';
const RUSSIAN = '🇷🇺 Москва | Быстрый ⚡';
const pct = encodeURIComponent;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

function one(link: string): { server: ParsedServer | undefined; reason: string | undefined; excerpt: string | undefined; notes: string[] } {
  const result = parseLinkList(link);
  return {
    server: result.servers[0],
    reason: result.rejected[0]?.reason,
    excerpt: result.rejected[0]?.excerpt,
    notes: result.notes.map((n) => n.note),
  };
}

const ACCEPTED: [string, string, Record<string, unknown>][] = [
  [
    'vmess v2rayN JSON, numbers as strings, ws + tls, Persian name with emoji',
    `vmess://${b64(
      JSON.stringify({
        v: '2',
        ps: PERSIAN,
        add: 'ir1.example.com',
        port: '443',
        id: UUID_1,
        aid: '0',
        scy: 'auto',
        net: 'ws',
        type: 'none',
        host: 'cdn.example.com',
        path: '/ws?ed=2048',
        tls: 'tls',
        sni: 'cdn.example.com',
        alpn: 'h2,http/1.1',
        fp: 'chrome',
      }),
    )}`,
    {
      name: PERSIAN,
      protocol: 'vmess',
      address: 'ir1.example.com',
      port: 443,
      uuid: UUID_1,
      alterId: 0,
      cipher: 'auto',
      transport: { network: 'ws', path: '/ws?ed=2048', host: 'cdn.example.com' },
      security: { type: 'tls', sni: 'cdn.example.com', alpn: ['h2', 'http/1.1'], fingerprint: 'chrome' },
    },
  ],
  [
    'vmess JSON with real numbers, grpc multi mode (service name in path)',
    `vmess://${b64(JSON.stringify({ v: 2, ps: RUSSIAN, add: '203.0.113.7', port: 2053, id: UUID_2.toUpperCase(), aid: 64, scy: 'chacha20-poly1305', net: 'grpc', type: 'multi', host: '', path: 'GunService', tls: 'tls', sni: 'grpc.example.com' }))}`,
    {
      name: RUSSIAN,
      address: '203.0.113.7',
      port: 2053,
      uuid: UUID_2,
      alterId: 64,
      cipher: 'chacha20-poly1305',
      transport: { network: 'grpc', serviceName: 'GunService', grpcMultiMode: true },
      security: { type: 'tls', sni: 'grpc.example.com' },
    },
  ],
  [
    'vmess JSON, tcp with HTTP header obfuscation',
    `vmess://${b64(JSON.stringify({ v: '2', ps: 'tcp-http', add: 'h.example.com', port: '80', id: UUID_1, aid: '0', net: 'tcp', type: 'http', host: 'www.bing.com', path: '/', tls: '' }))}`,
    { cipher: 'auto', transport: { network: 'tcp', headerType: 'http', host: 'www.bing.com', path: '/' }, security: { type: 'none' } },
  ],
  [
    'vmess JSON, mKCP with header and seed (seed travels in path)',
    `vmess://${b64(JSON.stringify({ v: '2', ps: 'kcp', add: 'k.example.com', port: '10086', id: UUID_1, aid: '0', net: 'kcp', type: 'wechat-video', host: '', path: 'seed-123', tls: 'none' }))}`,
    { transport: { network: 'kcp', headerType: 'wechat-video', seed: 'seed-123' }, security: { type: 'none' } },
  ],
  [
    'vmess JSON as Marzban writes grpc: multi mode in `mode`, header type "none" (the entry uses multi mode, as the server expects)',
    `vmess://${b64(JSON.stringify({ add: '192.0.2.11', aid: '0', fp: 'chrome', host: '', id: UUID_2, mode: 'multi', net: 'grpc', path: 'grpcsvc', port: 443, ps: 'grpc multi', scy: 'auto', sni: 'g.example.com', tls: 'tls', type: 'none', v: '2' }))}`,
    { transport: { network: 'grpc', serviceName: 'grpcsvc', grpcMultiMode: true }, security: { type: 'tls', sni: 'g.example.com', fingerprint: 'chrome' } },
  ],
  [
    'vmess JSON as Marzban writes xhttp: the mode in `type`, `extra` as a JSON object (padding settings reach the core)',
    `vmess://${b64(
      JSON.stringify({
        add: '192.0.2.10',
        aid: '0',
        extra: { noGRPCHeader: false, scMaxConcurrentPosts: 100, scMaxEachPostBytes: 1000000, scMinPostsIntervalMs: 30, xPaddingBytes: '100-1000' },
        fp: 'chrome',
        host: 'cdn.example.com',
        id: UUID_1,
        net: 'xhttp',
        path: '/xh',
        port: 443,
        ps: PERSIAN,
        scy: 'auto',
        sni: 'cdn.example.com',
        tls: 'tls',
        type: 'packet-up',
        v: '2',
      }),
    )}`,
    {
      name: PERSIAN,
      transport: {
        network: 'xhttp',
        path: '/xh',
        host: 'cdn.example.com',
        mode: 'packet-up',
        xhttpExtra: { noGRPCHeader: false, scMaxConcurrentPosts: 100, scMaxEachPostBytes: 1000000, scMinPostsIntervalMs: 30, xPaddingBytes: '100-1000' },
      },
    },
  ],
  [
    'vmess JSON written after the scheme without base64, as old exporters did (the server is imported, not refused as "neither base64 nor uuid@host:port")',
    `vmess://{"add":"192.0.2.81","aid":"64","host":"","id":"${UUID_3}","net":"tcp","path":"","port":"8000","ps":"无法导入","tls":"","type":"none","v":"2"}`,
    { name: '无法导入', address: '192.0.2.81', port: 8000, alterId: 64, uuid: UUID_3, transport: { network: 'tcp' }, security: { type: 'none' } },
  ],
  [
    'vmess JSON percent-encoded after the scheme',
    `vmess://${pct(JSON.stringify({ add: '192.0.2.82', port: 443, id: UUID_3, net: 'ws', path: '/p#1', host: 'p.example.com', tls: 'tls', ps: 'p' }))}`,
    { name: 'p', transport: { network: 'ws', path: '/p#1', host: 'p.example.com' }, security: { type: 'tls' } },
  ],
  [
    'vmess JSON in URL-safe base64 without padding',
    `vmess://${b64url(JSON.stringify({ v: '2', ps: '🇩🇪 DE ~ ??? >>', add: 'de.example.com', port: '8443', id: UUID_3, aid: '0', net: 'h2', host: 'a.example.com,b.example.com', path: '/h2', tls: 'tls' }))}`,
    { name: '🇩🇪 DE ~ ??? >>', transport: { network: 'h2', host: 'a.example.com,b.example.com', path: '/h2' }, security: { type: 'tls' } },
  ],
  [
    'vmess Shadowrocket form: base64(cipher:uuid@host:port) with a trailing newline, obfsParam as JSON',
    `vmess://${b64(`auto:${UUID_1}@sr.example.com:443\n`)}?remarks=${pct(RUSSIAN)}&obfsParam=${pct('{"Host":"cdn.example.com"}')}&path=/argo?ed=2048&obfs=websocket&tls=1&peer=cdn.example.com&alterId=0&allowInsecure=1`,
    {
      name: RUSSIAN,
      address: 'sr.example.com',
      port: 443,
      uuid: UUID_1,
      cipher: 'auto',
      transport: { network: 'ws', path: '/argo?ed=2048', host: 'cdn.example.com' },
      security: { type: 'tls', sni: 'cdn.example.com', allowInsecure: true },
    },
  ],
  [
    'vmess Quantumult form',
    `vmess://${b64(`QX-HK = vmess, hk.example.com, 443, chacha20-ietf-poly1305, "${UUID_2}", over-tls=true, tls-host=hk.example.com, certificate=1, obfs=ws, obfs-path="/qx", obfs-header="Host: hk.example.com[Rr][Nn]User-Agent: x"`)}`,
    { name: 'QX-HK', address: 'hk.example.com', uuid: UUID_2, transport: { network: 'ws', path: '/qx', host: 'hk.example.com' }, security: { type: 'tls', sni: 'hk.example.com' } },
  ],
  [
    'vmess URL-style share link',
    `vmess://${UUID_1}@[2001:db8::5]:443?type=ws&security=tls&path=%2Fvm&host=v.example.com&encryption=aes-128-gcm#${pct('VM url')}`,
    { name: 'VM url', address: '2001:db8::5', port: 443, cipher: 'aes-128-gcm', transport: { network: 'ws', path: '/vm', host: 'v.example.com' } },
  ],
  [
    'vless REALITY + vision, Persian name percent-encoded',
    `vless://${UUID_2}@91.107.130.12:443?encryption=none&flow=xtls-rprx-vision&security=reality&sni=www.speedtest.net&fp=chrome&pbk=${PBK}&sid=6ba85179e30d4fc2&spx=%2F&type=tcp&headerType=none#${pct(PERSIAN)}`,
    {
      name: PERSIAN,
      protocol: 'vless',
      address: '91.107.130.12',
      port: 443,
      uuid: UUID_2,
      flow: 'xtls-rprx-vision',
      encryption: 'none',
      transport: { network: 'tcp' },
      security: { type: 'reality', sni: 'www.speedtest.net', fingerprint: 'chrome', publicKey: PBK, shortId: '6ba85179e30d4fc2', spiderX: '/' },
    },
  ],
  [
    'vless ws + tls with encoded path, alpn list and allowInsecure',
    `vless://${UUID_1}@cf.example.com:2087?encryption=none&security=tls&sni=edge.example.com&alpn=h2%2Chttp%2F1.1&fp=randomized&allowInsecure=1&type=ws&host=edge.example.com&path=%2Fapi%2Fv1%3Fed%3D2560#${pct(RUSSIAN)}`,
    {
      name: RUSSIAN,
      transport: { network: 'ws', path: '/api/v1?ed=2560', host: 'edge.example.com' },
      security: { type: 'tls', sni: 'edge.example.com', alpn: ['h2', 'http/1.1'], fingerprint: 'randomized', allowInsecure: true },
    },
  ],
  [
    'vless grpc to an IPv6 address in brackets',
    `vless://${UUID_3}@[2a01:4f8:c17:b8f::2]:8443?security=tls&type=grpc&serviceName=vless-grpc&mode=multi&sni=g.example.com#v6`,
    { address: '2a01:4f8:c17:b8f::2', port: 8443, transport: { network: 'grpc', serviceName: 'vless-grpc', grpcMultiMode: true } },
  ],
  [
    'vless REALITY with the ML-DSA-65 key Xray also checks the server by (pqv)',
    `vless://${UUID_1}@r.example.com:443?security=reality&sni=www.example.com&fp=chrome&pbk=${PBK}&sid=6b&pqv=${MLDSA65_KEY}&type=tcp&flow=xtls-rprx-vision#pq`,
    { security: { type: 'reality', sni: 'www.example.com', fingerprint: 'chrome', publicKey: PBK, shortId: '6b', mldsa65Verify: MLDSA65_KEY } },
  ],
  [
    'vless grpc with the :authority a CDN needs (v2rayN writes it as `authority`; a `host` beside it is not it)',
    `vless://${UUID_3}@g.example.com:443?security=tls&sni=g.example.com&type=grpc&serviceName=svc&mode=multi&authority=auth.example.com&host=other.example.com#auth`,
    { transport: { network: 'grpc', serviceName: 'svc', grpcMultiMode: true, host: 'auth.example.com' } },
  ],
  [
    'vless xhttp with mode',
    `vless://${UUID_1}@x.example.com:443?security=tls&type=xhttp&path=%2Fxh&host=x.example.com&mode=packet-up#xhttp`,
    { transport: { network: 'xhttp', path: '/xh', host: 'x.example.com', mode: 'packet-up' } },
  ],
  [
    'vless splithttp (old name of xhttp), httpupgrade, h2 spelled "http"',
    `vless://${UUID_1}@x.example.com:443?security=tls&type=splithttp&path=%2Fsh#sh`,
    { transport: { network: 'xhttp', path: '/sh' } },
  ],
  [
    'vless httpupgrade',
    `vless://${UUID_1}@u.example.com:80?type=httpupgrade&path=%2Fup&host=u.example.com#up`,
    { transport: { network: 'httpupgrade', path: '/up', host: 'u.example.com' }, security: { type: 'none' } },
  ],
  ['vless h2 spelled type=http', `vless://${UUID_1}@h.example.com:443?type=http&security=tls&path=%2Fh2&host=h.example.com#h2`, { transport: { network: 'h2', path: '/h2' } }],
  ['vless mKCP with seed', `vless://${UUID_1}@k.example.com:4000?type=kcp&headerType=srtp&seed=s33d#kcp`, { transport: { network: 'kcp', headerType: 'srtp', seed: 's33d' } }],
  ['vless with a short custom id (Xray maps it to a UUID)', `vless://my-user-1@c.example.com:443?security=tls#custom`, { uuid: 'my-user-1' }],
  [
    'trojan: percent-encoded password, sni, default security tls',
    `trojan://${pct('p@ss:w/rd#1')}@tr.example.net:443?sni=tr.example.net&type=tcp#${pct(RUSSIAN)}`,
    { name: RUSSIAN, protocol: 'trojan', password: 'p@ss:w/rd#1', port: 443, transport: { network: 'tcp' }, security: { type: 'tls', sni: 'tr.example.net' } },
  ],
  ['trojan without a port uses 443; peer is the sni', `trojan://secret-pass@tr2.example.net?peer=front.example.com#t2`, { port: 443, security: { type: 'tls', sni: 'front.example.com' } }],
  [
    'trojan grpc with explicit security=tls',
    `trojan://secret-pass@tr3.example.net:2096?security=tls&type=grpc&serviceName=tr-grpc&sni=tr3.example.net#t3`,
    { transport: { network: 'grpc', serviceName: 'tr-grpc' } },
  ],
  [
    'trojan WebSocket written as a Shadowrocket plugin',
    `trojan://secret-pass@tr4.example.net:443?peer=cdn.example.com&plugin=obfs-local;obfs=websocket;obfs-host=cdn.example.com;obfs-uri=/tr?ed=2048#t4`,
    { transport: { network: 'ws', host: 'cdn.example.com', path: '/tr?ed=2048' }, security: { type: 'tls', sni: 'cdn.example.com' } },
  ],
  [
    'ss SIP002 with base64url user info without padding',
    `ss://${b64url('chacha20-ietf-poly1305:Gm9dX2kA7uQe')}@198.51.100.4:8388#${pct(PERSIAN)}`,
    { name: PERSIAN, protocol: 'shadowsocks', method: 'chacha20-ietf-poly1305', password: 'Gm9dX2kA7uQe', address: '198.51.100.4', port: 8388 },
  ],
  [
    'ss SIP002 with padded standard base64 user info and a trailing slash',
    `ss://${b64('aes-256-gcm:pa:ss+/=')}@ss.example.com:443/#std`,
    { method: 'aes-256-gcm', password: 'pa:ss+/=' },
  ],
  [
    'ss with Shadowrocket\'s shadow-tls payload (a Sub-Store fixture): the ShadowTLS plugin at the payload\'s address, so the app says it cannot run it instead of dialling a port that speaks ShadowTLS',
    `ss://${b64('aes-256-gcm:shadow-pass')}@ss.example.com:8388?shadow-tls=${b64(JSON.stringify({ host: 'mask.example.com', password: 'tls-pass', version: '3', address: '192.0.2.141', port: '9443' }))}#${pct('SS ShadowTLS')}`,
    { name: 'SS ShadowTLS', address: '192.0.2.141', port: 9443, method: 'aes-256-gcm', password: 'shadow-pass', plugin: { name: 'shadow-tls', options: 'host=mask.example.com;password=tls-pass;version=3' } },
  ],
  [
    'ss 2022 (aes-128) with plain percent-encoded user info and a multi-user key pair',
    `ss://2022-blake3-aes-128-gcm:${pct(`${KEY_16}:${KEY_16}`)}@ss22.example.com:443#2022`,
    { method: '2022-blake3-aes-128-gcm', password: `${KEY_16}:${KEY_16}` },
  ],
  [
    'ss 2022 (aes-256) with a base64url user info',
    `ss://${b64url(`2022-blake3-aes-256-gcm:${KEY_32_A}:${KEY_32_B}`)}@ss23.example.com:8443#2022b`,
    { method: '2022-blake3-aes-256-gcm', password: `${KEY_32_A}:${KEY_32_B}` },
  ],
  [
    'ss with the simple-obfs plugin parameters',
    `ss://${b64url('aes-128-gcm:obfspass')}@o.example.com:8080/?plugin=${pct('obfs-local;obfs=http;obfs-host=www.bing.com')}#obfs`,
    { plugin: { name: 'obfs-local', options: 'obfs=http;obfs-host=www.bing.com' } },
  ],
  [
    'ss legacy whole-base64 form with a name',
    `ss://${b64('aes-256-gcm:legacy@pass@192.0.2.44:8000')}#${pct(RUSSIAN)}`,
    { name: RUSSIAN, method: 'aes-256-gcm', password: 'legacy@pass', address: '192.0.2.44', port: 8000 },
  ],
  [
    'ss Shadowrocket form with v2ray-plugin over wss',
    `ss://${b64('chacha20-ietf-poly1305:srpass@sr.example.com:443\n')}?obfs=wss&obfsParam=cdn.example.com&path=/ss#srss`,
    { password: 'srpass', plugin: { name: 'v2ray-plugin', options: 'mode=websocket;tls;host=cdn.example.com;path=/ss' } },
  ],
  [
    'hysteria2 with obfs, insecure and bandwidth',
    `hysteria2://${pct('hy2:pa$$')}@hy.example.com:8443/?sni=hy.example.com&insecure=1&obfs=salamander&obfs-password=obfs-secret&up=50&down=200#${pct(PERSIAN)}`,
    {
      name: PERSIAN,
      protocol: 'hysteria2',
      password: 'hy2:pa$$',
      port: 8443,
      obfs: { type: 'salamander', password: 'obfs-secret' },
      upMbps: 50,
      downMbps: 200,
      transport: { network: 'quic' },
      security: { type: 'tls', sni: 'hy.example.com', allowInsecure: true },
    },
  ],
  ['hy2:// alias without a port (443)', `hy2://letmein@hy2.example.com/?sni=hy2.example.com#hy2`, { protocol: 'hysteria2', port: 443, password: 'letmein' }],
  [
    'hy2:// with the hopping range in `ports` and Mbps as upmbps / downmbps, as a converter\'s test fixture writes it (the range is kept, not dropped)',
    `hy2://hy2-secret@hy2.example.com:8443?alpn=h3&sni=hy2.example.com&ports=8443,8444&hop-interval=120&upmbps=50&downmbps=100#NODE-C`,
    { name: 'NODE-C', port: 8443, portHopping: '8443,8444', upMbps: 50, downMbps: 100, security: { type: 'tls', sni: 'hy2.example.com', alpn: ['h3'] } },
  ],
  [
    'tuic v5',
    `tuic://${UUID_3}:${pct('tu:ic')}@tuic.example.com:443?congestion_control=bbr&udp_relay_mode=native&alpn=h3&sni=tuic.example.com&allow_insecure=0#${pct(RUSSIAN)}`,
    {
      name: RUSSIAN,
      protocol: 'tuic',
      uuid: UUID_3,
      password: 'tu:ic',
      congestionControl: 'bbr',
      udpRelayMode: 'native',
      security: { type: 'tls', sni: 'tuic.example.com', alpn: ['h3'] },
    },
  ],
  [
    'wireguard with percent-encoded keys, two addresses, reserved, mtu and psk',
    `wireguard://${pct(WG_PRIVATE)}@162.159.192.1:2408?publickey=${pct(WG_PUBLIC)}&presharedkey=${pct(WG_PSK)}&address=${pct('172.16.0.2/32,2606:4700:110:8f81::2/128')}&reserved=12,34,56&mtu=1280#warp`,
    {
      protocol: 'wireguard',
      privateKey: WG_PRIVATE,
      publicKey: WG_PUBLIC,
      preSharedKey: WG_PSK,
      localAddresses: ['172.16.0.2/32', '2606:4700:110:8f81::2/128'],
      reserved: [12, 34, 56],
      mtu: 1280,
      port: 2408,
    },
  ],
  [
    'wg:// alias with unencoded keys (+ stays +), a bare address and base64 reserved',
    `wg://${WG_PRIVATE}@[2606:4700:d0::a29f:c001]:500?publicKey=${WG_PUBLIC}&ip=10.0.0.2&reserved=DCI4#wg6`,
    { address: '2606:4700:d0::a29f:c001', publicKey: WG_PUBLIC, localAddresses: ['10.0.0.2/32'], reserved: [12, 34, 56] },
  ],
  [
    'wg:// as Hiddify writes it: keys in pk / peer_pk, the tunnel address in local_address, no user info',
    `wg://192.0.2.222:222/?pk=${pct(WG_PRIVATE)}&local_address=10.0.0.2/24&peer_pk=${pct(WG_PUBLIC)}&pre_shared_key=${pct(WG_PSK)}&workers=2&mtu=1280&reserved=0,0,0`,
    { protocol: 'wireguard', address: '192.0.2.222', port: 222, privateKey: WG_PRIVATE, publicKey: WG_PUBLIC, preSharedKey: WG_PSK, localAddresses: ['10.0.0.2/24'], reserved: [0, 0, 0], mtu: 1280 },
  ],
  [
    'wg:// as Throne and NekoBox write it: both tunnel addresses and the reserved bytes joined by "-"',
    `wg://wg.example.com:51820?private_key=${pct(WG_PRIVATE)}&peer_public_key=${pct(WG_PUBLIC)}&pre_shared_key=&reserved=12-34-56&persistent_keepalive=25&mtu=1420&local_address=${pct('172.16.0.2/32-fd01:5ca1::2/128')}&workers=0#throne`,
    { protocol: 'wireguard', privateKey: WG_PRIVATE, publicKey: WG_PUBLIC, localAddresses: ['172.16.0.2/32', 'fd01:5ca1::2/128'], reserved: [12, 34, 56], mtu: 1420 },
  ],
  [
    'hy2:// as Throne writes port hopping: server_ports, two ranges joined by "-"',
    `hy2://pw@hy.example.com:443?sni=hy.example.com&server_ports=20000-30000-40000-50000&hop_interval=30s#throne`,
    { protocol: 'hysteria2', port: 443, portHopping: '20000-30000,40000-50000' },
  ],
  ['hy2:// with Throne\'s server_ports of one range', `hy2://pw@hy.example.com:443?server_ports=20000-30000#t`, { protocol: 'hysteria2', portHopping: '20000-30000' }],
  ['socks with base64 user info', `socks://${b64('user:pa:ss')}@127.0.0.1:1080#${pct('local socks')}`, { protocol: 'socks', username: 'user', password: 'pa:ss', name: 'local socks' }],
  ['socks5 with plain user info', `socks5://alice:${pct('s3cr@t')}@socks.example.com:1081`, { username: 'alice', password: 's3cr@t', name: 'socks.example.com:1081' }],
  ['socks without credentials and port (1080)', `socks5://socks.example.com`, { port: 1080, name: 'socks.example.com:1080' }],
  ['http proxy with credentials', `http://bob:hunter22@proxy.example.com:3128#office`, { protocol: 'http', username: 'bob', password: 'hunter22', port: 3128, security: { type: 'none' } }],
  ['https proxy', `https://proxy.example.com:8443#tls-proxy`, { protocol: 'http', port: 8443, security: { type: 'tls' } }],
  // Found in other clients' fixtures and real panel output:
  [
    'vmess JSON with a #name after the base64: the sharer’s name wins over ps',
    `vmess://${b64(JSON.stringify({ v: '2', ps: 'inner', add: 'v.example.com', port: '443', id: UUID_1, net: 'tcp', tls: '' }))}#${pct('🇺🇸 US @channel')}`,
    { name: '🇺🇸 US @channel', address: 'v.example.com' },
  ],
  [
    'vmess JSON of format version 1 (no "v"): WebSocket host and path as "host;path" in host',
    `vmess://${b64(JSON.stringify({ ps: 'v1', add: 'v1.example.com', port: '8003', id: UUID_1, aid: '0', net: 'ws', type: 'none', host: 'cdn.example.com;/chat', tls: '' }))}`,
    { transport: { network: 'ws', host: 'cdn.example.com', path: '/chat' } },
  ],
  [
    'vmess JSON of version 1 with only the path in host',
    `vmess://${b64(JSON.stringify({ ps: 'v1', add: 'v1.example.com', port: '8003', id: UUID_1, aid: '0', net: 'ws', type: 'none', host: '/yaboviss', tls: '' }))}`,
    { transport: { network: 'ws', path: '/yaboviss' } },
  ],
  ['socks as v2rayN exports it: base64 user info with its padding percent-encoded', `socks://Ym9iOnNlY3JldA%3D%3D@socks.example.com:1080#SOCKS`, { username: 'bob', password: 'secret', name: 'SOCKS' }],
  [
    'ss with its stream in the query (3x-ui): WebSocket over TLS',
    `ss://${b64url('aes-128-gcm:secret')}@ss-ws.example.com:443?type=ws&path=${pct('/ws?ed=2048')}&host=cdn.example.com&security=tls&sni=cdn.example.com#ws`,
    { protocol: 'shadowsocks', method: 'aes-128-gcm', transport: { network: 'ws', path: '/ws?ed=2048', host: 'cdn.example.com' }, security: { type: 'tls', sni: 'cdn.example.com' } },
  ],
  ['ss with type=tcp in the query stays plain TCP', `ss://${b64url('aes-128-gcm:secret')}@ss.example.com:8388?type=tcp#plain`, { transport: { network: 'tcp' }, security: { type: 'none' } }],
  ['trojan with the WebSocket flag of Shadowrocket / trojan-go (ws=1&wspath=)', `trojan://pw12@t.example.com:443?ws=1&wspath=${pct('/tr')}&peer=t.example.com#tr`, { transport: { network: 'ws', path: '/tr' }, security: { type: 'tls', sni: 't.example.com' } }],
  ['trojan with a bare ws flag', `trojan://pw12@[2001:db8::1]:443?udp&tfo&ws&wspath=${pct('/ws')}#v6`, { address: '2001:db8::1', transport: { network: 'ws', path: '/ws' } }],
  ['a name form-encoded by a panel: + is a space, %2B a plus', `vless://${UUID_1}@v.example.com:443?security=tls#${pct('Россия')}+%2B+%23001`, { name: 'Россия + #001' }],
  ['a name without escapes keeps its + as typed', `vless://${UUID_1}@v.example.com:443?security=tls#Netflix+YouTube`, { name: 'Netflix+YouTube' }],
  ['a name with %20 spaces keeps its + as typed', `vless://${UUID_1}@v.example.com:443?security=tls#${pct('C++ fans')}`, { name: 'C++ fans' }],
  // A panel cut the name mid-character: the server is kept, the lost bytes shown as U+FFFD.
  ['a name whose escapes are not UTF-8', `trojan://pw12@t.example.com:443#Germany%FF%FE`, { name: 'Germany\uFFFD\uFFFD' }],
  ['a name cut in the middle of a character', `hysteria2://pw@h.example.com:443/?sni=h.example.com#${pct('香港')}%E8%B7`, { protocol: 'hysteria2', name: '香港\uFFFD' }],
];

describe('share links: every scheme and variant', () => {
  it.each(ACCEPTED)('%s', (_title, link, expected) => {
    const { server, reason } = one(link);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject(expected);
  });

  it('vmess JSON with header type "auto" on tcp (a provider link from a Qv2ray report) connects without a header, as in v2rayN, instead of an unknown TCP header', () => {
    const json = `${JSON.stringify({ id: UUID_1, port: '443', ps: 'ShaDiaoJiChang', tls: 'tls', aid: 0, v: 2, path: '', type: 'auto', host: '', net: 'tcp', add: 'meiguo.example.com' })}\n`;
    const { server, reason } = one(`vmess://${b64(json)}`);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject({ name: 'ShaDiaoJiChang', address: 'meiguo.example.com', security: { type: 'tls' } });
    expect(server?.transport).toEqual({ network: 'tcp' });
  });

  it('a VLESS flow written as "none" (trojan-panel\'s links) is no flow, not an obsolete one that would mark the server unsupported', () => {
    const { server, reason } = one(`vless://${UUID_1}@192.0.2.86:2086?type=ws&security=none&flow=none&path=/cfbd1a&host=cdn.example.com#testt-W-FAIR`);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject({ name: 'testt-W-FAIR', transport: { network: 'ws', path: '/cfbd1a', host: 'cdn.example.com' } });
    expect(server).not.toHaveProperty('flow');
  });

  it('a % that starts no escape is kept as typed; the escapes around it decode', () => {
    const { server } = one(`trojan://pw12@t.example.com:443#${pct('Москва')}%zz%20100%`);
    expect(server?.name).toBe('Москва%zz 100%');
  });

  it('a link without a name is named host:port (IPv6 in brackets)', () => {
    expect(one(`vless://${UUID_1}@[2001:db8::1]:443?security=none`).server?.name).toBe('[2001:db8::1]:443');
  });

  it('says which options the cores do not take rather than dropping them without a word: UDP over TCP, Outline\'s prefix, TUIC\'s 0-RTT', () => {
    expect(one(`ss://${b64url('aes-256-gcm:pw')}@s.example.com:8388?uot=1#u`).notes).toEqual(['ss: UDP over TCP is not applied (the core sends UDP as UDP)']);
    expect(one(`ss://${b64url('chacha20-ietf-poly1305:pw')}@s.example.com:443/?outline=1&prefix=${pct('\u0016\u0003\u0001')}#o`).notes).toEqual(["ss: the prefix (Outline's disguise of the first bytes) is not applied"]);
    expect(one(`tuic://${UUID_1}:pw@t.example.com:443?reduce_rtt=1&sni=t.example.com#t`).notes).toEqual(['tuic: 0-RTT (reduce_rtt) is not applied: the handshake takes its round trip']);
  });

  it('a rejected entry leaves no notes behind', () => {
    const { server, notes, reason } = one(`hysteria2://pw@hy.example.com:443,20000-30000/?obfs=salamander#hop`);
    expect(server).toBeUndefined();
    expect(reason).toMatch(/obfs salamander without obfs-password/);
    expect(notes).toEqual([]);
  });

  it('hysteria2 port hopping is kept as the range, its first port as the port, never cut to one port', () => {
    expect(one(`hysteria2://pw@hy.example.com:443-500/?sni=hy.example.com#hop`).server).toMatchObject({ port: 443, portHopping: '443-500' });
    expect(one(`hysteria2://pw@hy.example.com:20000-30000,443/#hop`).server).toMatchObject({ port: 20000, portHopping: '20000-30000,443' });
    expect(one(`hysteria2://pw@hy.example.com:8443/?mport=20000-30000#hop`).server).toMatchObject({ port: 8443, portHopping: '20000-30000' });
    expect(one(`hysteria2://pw@hy.example.com:8443/#plain`).server).not.toHaveProperty('portHopping');
  });
});

describe('tuic links: each parameter in every spelling panels write (underscores, hyphens, camel case)', () => {
  const TUIC: [string, string, Record<string, unknown>][] = [
    [
      'hyphens, as some panels write them (allow-insecure and congestion-control were ignored while udp-relay-mode was read)',
      `tuic://${UUID_3}:${pct('tu:ic')}@tuic.example.com:443?congestion-control=bbr&udp-relay-mode=quic&alpn=h3&sni=tuic.example.com&allow-insecure=1#hy`,
      { congestionControl: 'bbr', udpRelayMode: 'quic', security: { type: 'tls', sni: 'tuic.example.com', alpn: ['h3'], allowInsecure: true } },
    ],
    [
      'underscores (v2rayN, NekoBox)',
      `tuic://${UUID_3}:pw@tuic.example.com:443?congestion_control=cubic&udp_relay_mode=native&alpn=h3&allow_insecure=1&disable_sni=1&sni=tuic.example.com#us`,
      { congestionControl: 'cubic', udpRelayMode: 'native', security: { type: 'tls', alpn: ['h3'], allowInsecure: true } },
    ],
    [
      'camel case',
      `tuic://${UUID_3}:pw@tuic.example.com:443?congestionControl=new_reno&udpRelayMode=native&allowInsecure=1&disableSni=1&sni=tuic.example.com#cc`,
      { congestionControl: 'new_reno', udpRelayMode: 'native', security: { type: 'tls', allowInsecure: true } },
    ],
    ["Clash's congestion-controller carried into a link", `tuic://${UUID_3}:pw@tuic.example.com:443?congestion-controller=bbr&sni=tuic.example.com#cl`, { congestionControl: 'bbr' }],
  ];

  it.each(TUIC)('%s', (_title, link, expected) => {
    const { server, reason } = one(link);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject(expected);
  });

  it('allow-insecure=0 keeps the certificate verified; disable-sni drops the SNI', () => {
    const { server } = one(`tuic://${UUID_3}:pw@tuic.example.com:443?allow-insecure=0&disable-sni=1&sni=tuic.example.com#v`);
    expect(server?.security).toEqual({ type: 'tls' });
  });
});

describe('a literal + in names and query values', () => {
  const PLUS: [string, string, Record<string, unknown>][] = [
    // RFC 3986 keeps + in a fragment; Go's url package writes "HK+|+Netflix" so.
    ['a name with raw + beside escapes keeps its pluses (RFC 3986)', `trojan://pw12@t.example.com:443#HK+%7C+Netflix`, { name: 'HK+|+Netflix' }],
    ['the same with a non-ASCII name', `vless://${UUID_1}@v.example.com:443?security=tls#${pct('Россия')}+%7C+%23001`, { name: 'Россия+|+#001' }],
    ['a vmess JSON link renamed with a #name keeps its pluses too', `vmess://${b64(JSON.stringify({ v: '2', ps: 'inner', add: 'v.example.com', port: '443', id: UUID_1, net: 'tcp', tls: '' }))}#A+%7C+B`, { name: 'A+|+B' }],
    // Query values are form values: a name there reads + as a space, %2B as a plus.
    ['a Shadowrocket remarks= written by a form encoder', `vmess://${b64(`auto:${UUID_1}@sr.example.com:443`)}?remarks=${pct('CA')}+Bell+%2B+1&obfs=websocket&tls=1`, { name: 'CA Bell + 1' }],
    ['an ss remarks= written by a form encoder', `ss://${b64url('aes-128-gcm:secret')}@ss.example.com:8388/?remarks=Tokyo+%231`, { name: 'Tokyo #1' }],
    // A password, a key or a path keeps its +: a form encoder would have written %2B, and reading + as a space would break it.
    ['a hysteria2 obfs-password keeps its +', `hysteria2://pw@hy.example.com:443/?obfs=salamander&obfs-password=a+b/c=#h`, { obfs: { type: 'salamander', password: 'a+b/c=' } }],
    ['a WebSocket path keeps its +', `vless://${UUID_1}@v.example.com:443?type=ws&path=/a+b&security=tls#p`, { transport: { network: 'ws', path: '/a+b' } }],
  ];

  it.each(PLUS)('%s', (_title, link, expected) => {
    const { server, reason } = one(link);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject(expected);
  });

  it("xhttp's extra JSON from a form-encoding panel (spaces written as +) is read as the JSON it was; a + inside a value stays", () => {
    const extra = '%7B%22xPaddingBytes%22%3A+%22100-1000%22%2C+%22headers%22%3A+%7B%22X-Tag%22%3A+%22a%2Bb%22%7D%7D';
    const { server, notes } = one(`vless://${UUID_1}@x.example.com:443?type=xhttp&security=tls&path=%2Fx&extra=${extra}#x`);
    expect(notes).toEqual([]);
    expect(server?.transport.xhttpExtra).toEqual({ xPaddingBytes: '100-1000', headers: { 'X-Tag': 'a+b' } });
  });
});

describe("Shadowrocket's VLESS form, read as its VMess form is", () => {
  // The query shapes of Shadowrocket exports found in other clients' fixtures; addresses and ids replaced.
  const SR_PBK = 'EW0Uda0mRwsuvvsozQkyqXIe-mYRwKCvWcG6qTAwlh4';
  const ROWS: [string, string, Record<string, unknown>][] = [
    [
      'REALITY + Vision with an empty encryption (":uuid@host:port"), xtls=2',
      `vless://${b64(`:${UUID_1}@192.0.2.150:54545`)}?remarks=CA%20Bell&tls=1&peer=apple.com&allowInsecure=1&udp=1&xtls=2&pbk=${SR_PBK}&sid=8e7b5f82e7ea3ec6`,
      {
        name: 'CA Bell',
        protocol: 'vless',
        address: '192.0.2.150',
        port: 54545,
        uuid: UUID_1,
        encryption: 'none',
        flow: 'xtls-rprx-vision',
        transport: { network: 'tcp' },
        security: { type: 'reality', sni: 'apple.com', publicKey: SR_PBK, shortId: '8e7b5f82e7ea3ec6' },
      },
    ],
    [
      'REALITY with "none:" and its fingerprint (base64 without padding)',
      `vless://${b64(`none:${UUID_2}@203.0.113.8:13243`).replace(/=+$/, '')}?remarks=YXVM%20HK&tls=1&peer=m.media-amazon.com&tfo=1&udp=1&xtls=2&pbk=TENM-A9rzf9LroX9c0A5XRtjbt44NWHjJ6piw3136Rg&sid=c277ea89&fingerprint=chrome`,
      { name: 'YXVM HK', uuid: UUID_2, flow: 'xtls-rprx-vision', security: { type: 'reality', sni: 'm.media-amazon.com', fingerprint: 'chrome', shortId: 'c277ea89' } },
    ],
    [
      'WebSocket over TLS: obfs=websocket, obfsParam the Host, peer the SNI, no flow',
      `vless://${b64(`none:${UUID_3}@sr.example.com:443`)}?remarks=${pct(RUSSIAN)}&tls=1&obfs=websocket&obfsParam=cdn.example.com&path=/ws?ed=2048&peer=cdn.example.com`,
      { name: RUSSIAN, uuid: UUID_3, transport: { network: 'ws', host: 'cdn.example.com', path: '/ws?ed=2048' }, security: { type: 'tls', sni: 'cdn.example.com' } },
    ],
    [
      'base64url payload with a custom prefix, WebSocket and xtls=2, as a converter writes it',
      `vless://${b64url(`prefix:${UUID_1}@sr-xtls-vision.example.com:443`)}?obfs=websocket&tls=1&xtls=2#SRXtlsVision`,
      { name: 'SRXtlsVision', flow: 'xtls-rprx-vision', encryption: 'prefix', transport: { network: 'ws' }, security: { type: 'tls' } },
    ],
    [
      'the same query after a plain uuid@host:port',
      `vless://${UUID_1}@192.0.2.151:2053?remarks=${pct('日本家宽')}&tls=1&peer=www.cloudflare.com&udp=1&xtls=2&pbk=${SR_PBK}&sid=6ba85179e30d4fc2`,
      { name: '日本家宽', uuid: UUID_1, port: 2053, flow: 'xtls-rprx-vision', security: { type: 'reality', sni: 'www.cloudflare.com', publicKey: SR_PBK } },
    ],
  ];

  it.each(ROWS)('%s', (_title, link, expected) => {
    const { server, reason, notes } = one(link);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject(expected);
    expect(notes).toEqual([]);
  });

  it('its ech= is kept as in the standard form', () => {
    const ech = 'AEz+DQBIAAAgACCrViCgiqG5CDnng32rNVP/N/AHtbqAaGCshOV24QXjMQAMAAEAAQABAAIAAQADABFkZWNveS5leGFtcGxlLmNvbQAA';
    const { server, notes } = one(`vless://${b64(`none:${UUID_1}@sr.example.com:443`)}?tls=1&obfs=websocket&path=/ws&peer=real.example.com&ech=${pct(ech)}`);
    expect(server?.security).toMatchObject({ type: 'tls', sni: 'real.example.com', ech });
    expect(notes).toEqual([]);
  });

  it('a link without xtls has no flow', () => {
    expect(one(`vless://${b64(`:${UUID_1}@192.0.2.152:443`)}?tls=1&peer=v.example.com`).server).not.toHaveProperty('flow');
  });

  it('xtls=1 (the XTLS v1 flows) is refused as obsolete, as a standard link with that flow is', () => {
    expect(one(`vless://${b64(`none:${UUID_1}@192.0.2.153:443`)}?tls=1&xtls=1&peer=v.example.com`).reason).toMatch(/^vless: the flow "xtls-rprx-direct" \(XTLS v1\) is obsolete/);
  });

  it('a base64 payload that is no uuid@host:port is refused as a link without a UUID', () => {
    expect(one(`vless://${b64('just some words')}?tls=1`).reason).toBe('vless: missing UUID');
  });
});

describe('socks links with tls=1 are SOCKS inside TLS, never plain SOCKS', () => {
  // Shadowrocket writes a SOCKS5-over-TLS server so (stunnel in front of a SOCKS server). Read as
  // plain SOCKS, the credentials would go in the clear to a port that expects a TLS handshake.
  const ROWS: [string, string, Record<string, unknown>][] = [
    ['tls=1 with sni and allowInsecure', `socks://${b64('user:pass')}@socks.example.com:443?tls=1&sni=front.example.com&allowInsecure=1#${pct('SOCKS TLS')}`, { name: 'SOCKS TLS', protocol: 'socks', username: 'user', password: 'pass', port: 443, security: { type: 'tls', sni: 'front.example.com', allowInsecure: true } }],
    ['socks5 with tls=true and the SNI as peer', `socks5://alice:secret@192.0.2.160:8443?tls=true&peer=socks.example.com`, { security: { type: 'tls', sni: 'socks.example.com' } }],
    ['security=tls (the standard name)', `socks5://192.0.2.161:1443?security=tls&sni=s.example.com`, { port: 1443, security: { type: 'tls', sni: 's.example.com' } }],
    ['tls=0 is plain SOCKS', `socks5://192.0.2.162:1080?tls=0`, { security: { type: 'none' } }],
  ];

  it.each(ROWS)('%s', (_title, link, expected) => {
    const { server, reason, notes } = one(link);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject(expected);
    expect(notes).toEqual([]);
  });
});

const REJECTED: [string, string, RegExp, string?][] = [
  ['vless without UUID', `vless://@v.example.com:443?security=tls`, /^vless: missing UUID$/],
  ['vless with a port out of range', `vless://${UUID_1}@v.example.com:70000`, /^vless: port 70000 out of range/, UUID_1],
  ['vless without a port', `vless://${UUID_1}@v.example.com?security=tls`, /^vless: missing port$/, UUID_1],
  ['vless with a cut-off UUID', `vless://a7e505a9-d63f-48ac-92f3@v.example.com:443`, /^vless: the UUID is malformed/],
  ['vless with a space in the UUID', `vless://${pct('a7e505a9 d63f')}@v.example.com:443`, /^vless: the UUID is malformed/],
  ['vless REALITY without a public key', `vless://${UUID_1}@v.example.com:443?security=reality&sni=x.com`, /^vless: REALITY without a public key/, UUID_1],
  ['vless REALITY with a cut-off ML-DSA-65 key', `vless://${UUID_1}@v.example.com:443?security=reality&sni=x.com&pbk=${PBK}&pqv=${MLDSA65_KEY.slice(0, 100)}`, /^vless: the REALITY ML-DSA-65 key \(pqv\) is not one \(1,952 bytes in base64url/, UUID_1],
  ['vless with an unknown transport', `vless://${UUID_1}@v.example.com:443?type=carrier-pigeon`, /^vless: unknown transport "carrier-pigeon"/, UUID_1],
  ['vless with an unknown security', `vless://${UUID_1}@v.example.com:443?security=rot13`, /^vless: unknown security "rot13"/, UUID_1],
  ['vless with no host', `vless://${UUID_1}@:443`, /^vless: missing server address$/, UUID_1],
  ['vless with a space in the host', `vless://${UUID_1}@bad host.com:443`, /^vless: "bad host.com" is not a host name/, UUID_1],
  // A link broken so that its credential lands in the host: the reason quotes the host without it.
  ['vless whose host repeats its UUID (a stray bracket)', `vless://${UUID_1}@[::${UUID_1}]:443`, /^vless: "::<uuid>" is not a host name or IP address$/, UUID_1],
  ['vmess JSON whose address carries user info', `vmess://${b64(JSON.stringify({ add: 'me:hunter22secret@x.example.com', port: 443, id: UUID_2 }))}`, /^vmess: "\*\*\*@x\.example\.com" is not a host name or IP address$/, 'hunter22secret'],
  ['vless with a non-numeric port', `vless://${UUID_1}@v.example.com:https`, /^vless: port "https" is not a number$/, UUID_1],
  ['trojan without a password', `trojan://@t.example.com:443`, /^trojan: missing password$/],
  ['vmess whose payload is not base64', `vmess://this is not base64!`, /^vmess: the payload is neither base64/],
  ['vmess whose JSON is broken', `vmess://${b64('{"add":"x.com","port":"443",')}`, /^vmess: the base64 payload is not valid JSON$/],
  ['vmess JSON without id', `vmess://${b64(JSON.stringify({ v: '2', ps: 'x', add: 'x.example.com', port: '443' }))}`, /^vmess: missing UUID$/],
  ['vmess JSON with port 0', `vmess://${b64(JSON.stringify({ add: 'x.example.com', port: 0, id: UUID_2 }))}`, /^vmess: port 0 out of range/, UUID_2],
  ['ss whose user info is not method:password', `ss://${b64url('nocolonhere')}@s.example.com:8388`, /^ss: the user info is neither base64 nor method:password$/],
  ['ss 2022 with a key of the wrong size', `ss://2022-blake3-aes-256-gcm:${pct(KEY_16)}@s.example.com:443`, /^ss: 2022-blake3-aes-256-gcm needs base64 keys of 32 bytes$/, KEY_16],
  ['ss legacy base64 without @', `ss://${b64('aes-256-gcm:pass')}#x`, /^ss: the base64 payload is not method:password@host:port$/],
  ['hysteria2 obfs without its password', `hysteria2://pw@h.example.com:443/?obfs=salamander`, /^hysteria2: obfs salamander without obfs-password$/],
  ['tuic without a password', `tuic://${UUID_1}@t.example.com:443`, /^tuic: missing password$/, UUID_1],
  ['wireguard without a public key', `wireguard://${pct(WG_PRIVATE)}@w.example.com:51820?address=10.0.0.2`, /^wireguard: missing public key/, WG_PRIVATE],
  ['wireguard with a broken private key', `wireguard://tooshort@w.example.com:51820?publickey=${pct(WG_PUBLIC)}&address=10.0.0.2`, /^wireguard: the private key is not a 32-byte base64 key$/, 'tooshort'],
  ['wireguard without an address', `wireguard://${pct(WG_PRIVATE)}@w.example.com:51820?publickey=${pct(WG_PUBLIC)}`, /^wireguard: missing address/, WG_PRIVATE],
  [
    'an AmneziaWG server, as Throne writes it',
    `wg://w.example.com:51820?private_key=${pct(WG_PRIVATE)}&peer_public_key=${pct(WG_PUBLIC)}&local_address=10.0.0.2/32&enable_amnezia=true&junk_packet_count=4&junk_packet_min_size=40&junk_packet_max_size=70`,
    /^wireguard: an AmneziaWG server \(junk packets or magic headers\), which neither Xray nor sing-box can reach$/,
    WG_PRIVATE,
  ],
  ['an AmneziaWG server by its short names', `wireguard://${pct(WG_PRIVATE)}@w.example.com:51820?publickey=${pct(WG_PUBLIC)}&address=10.0.0.2&jc=5&jmin=50&jmax=1000&h1=1234`, /^wireguard: an AmneziaWG server/, WG_PRIVATE],
  ['hysteria2 with Throne\'s server_ports of an odd count', `hy2://pw@h.example.com:443?server_ports=1000-2000-3000`, /^hysteria2: server_ports "1000-2000-3000" is no list of port ranges$/],
  ['a subscription URL in a list of links', `https://panel.example.com/sub/8f14e45fceea167a5a36dedd4bea2543`, /^https: a web or subscription address, not a proxy/],
  ['a web site in a list of links', `https://t.me`, /^https: a web address without a port, not a proxy$/],
  ['an unknown scheme', `foo://bar`, /^unknown scheme foo:\/\/$/],
  ['ShadowsocksR', `ssr://${b64url('1.2.3.4:443:origin:aes-256-cfb:plain:cGFzcw/?remarks=eA')}`, /^unknown scheme ssr:\/\/ \(ShadowsocksR is not supported/],
  ['a panel notice at 0.0.0.0 (Marzban / Remnawave for an unsupported or expired client)', `vless://00000000-0000-0000-0000-000000000000@0.0.0.0:1#${pct('App not supported')}`, /^not a server: 0\.0\.0\.0 is the placeholder address panels use to carry a notice \("App not supported"\)$/],
  ['a panel notice at :: in a vmess JSON', `vmess://${b64(JSON.stringify({ v: '2', ps: '⛔ Подписка истекла', add: '::', port: 1, id: UUID_2 }))}`, /^not a server: :: is the placeholder address .*"⛔ Подписка истекла"/, UUID_2],
  ['ss with an unknown cipher, named', `ss://${b64url('114514:pass')}@s.example.com:8388#x`, /^ss: unknown cipher "114514"$/, 'pass'],
  ['ss plain user info with an unknown cipher', `ss://aes-256-gcn:pass@s.example.com:8388#x`, /^ss: unknown cipher "aes-256-gcn"$/],
  ['hysteria2 with a backwards port range', `hysteria2://pw@h.example.com:500-443/`, /^hysteria2: the port range 500-443 runs backwards$/],
  ['hysteria2 with a port range past 65535', `hysteria2://pw@h.example.com:443-70000/`, /^hysteria2: port 70000 out of range/],
  ['hysteria2 with a broken mport', `hysteria2://pw@h.example.com:443/?mport=lots`, /^hysteria2: "lots" is not a port or port range$/],
  ['vless with security=xtls (XTLS v1)', `vless://${UUID_1}@v.example.com:443?security=xtls&flow=xtls-rprx-direct`, /^vless: security "xtls" \(XTLS v1\) is obsolete/, UUID_1],
  ['vless with flow=xtls-rprx-splice', `vless://${UUID_1}@v.example.com:443?security=tls&flow=xtls-rprx-splice`, /^vless: the flow "xtls-rprx-splice" \(XTLS v1\) is obsolete/, UUID_1],
  ['trojan with security=xtls', `trojan://pw12@t.example.com:443?security=xtls`, /^trojan: security "xtls" \(XTLS v1\) is obsolete/],
  // A password's bytes are not quoted, not even its broken escapes; a path's are, to help find them.
  ['a password whose escapes cut a character in half', `trojan://p%E2%9A@t.example.com:443#x`, /^the percent-escapes in the user info are not UTF-8 text$/, '%E2%9A'],
  ['an ss password whose escapes are not UTF-8', `ss://aes-256-gcm:pw%C0%AF@s.example.com:8388#x`, /^the percent-escapes in the user info are not UTF-8 text$/, '%C0%AF'],
  ['an obfs-password whose escapes are not UTF-8', `hysteria2://pw@h.example.com:443/?obfs=salamander&obfs-password=ab%C0%AF`, /^the percent-escapes in the obfs-password are not UTF-8 text$/, '%C0%AF'],
  ['a query value whose escapes are not UTF-8', `vless://${UUID_1}@v.example.com:443?type=ws&path=%2F%C0%AF`, /^the percent-escapes "%2F%C0%AF" are not UTF-8 text$/, UUID_1],
  ['vless ws with a non-numeric ed=', `vless://${UUID_1}@v.example.com:443?type=ws&path=${pct('/ws?ed=abc')}`, /^ws: the early-data size in the path \(ed=abc\) is not a number$/, UUID_1],
  ['vmess JSON httpupgrade with a non-numeric ed=', `vmess://${b64(JSON.stringify({ add: 'x.example.com', port: 443, id: UUID_2, net: 'httpupgrade', path: '/u?ed=2k' }))}`, /^httpupgrade: the early-data size in the path \(ed=2k\) is not a number$/, UUID_2],
  ['a line that is no link at all', `Traffic left: 70GB, renew at example.com`, /^not a share link/],
];

describe('share links: xhttp extra settings', () => {
  const extra = { xPaddingBytes: '100-1000', noGRPCHeader: false, downloadSettings: { address: 'dl.example.com', port: 443, network: 'xhttp', xhttpSettings: { path: '/d' } } };

  it('vless over xhttp keeps the link’s extra JSON for the core', () => {
    const { server, notes } = one(`vless://${UUID_1}@x.example.com:443?type=xhttp&security=tls&path=%2Fx&mode=auto&extra=${pct(JSON.stringify(extra))}#x`);
    expect(server?.transport).toEqual({ network: 'xhttp', path: '/x', mode: 'auto', xhttpExtra: extra });
    expect(notes).toEqual([]);
  });

  it('what a provider may not choose on this machine is dropped, and said: local files, certificates, socket options', () => {
    const hostile = { ...extra, downloadSettings: { ...extra.downloadSettings, sockopt: { interface: 'eth0', dialerProxy: 'direct' }, tlsSettings: { certificates: [{ certificateFile: '/home/user/.ssh/id_rsa' }], serverName: 'dl.example.com' } } };
    const { server, notes } = one(`vless://${UUID_1}@x.example.com:443?type=xhttp&security=tls&extra=${pct(JSON.stringify(hostile))}#x`);
    expect(JSON.stringify(server?.transport.xhttpExtra)).not.toMatch(/sockopt|certificate|id_rsa/);
    expect(server?.transport.xhttpExtra).toMatchObject({ downloadSettings: { address: 'dl.example.com', tlsSettings: { serverName: 'dl.example.com' } } });
    expect(notes).toEqual([expect.stringMatching(/^vless: xhttp extra settings: sockopt, certificates ignored/)]);
  });

  it('extra nested without end is cut at a sane depth, said, and the server kept', () => {
    const deep = `${'{"a":'.repeat(20)}1${'}'.repeat(20)}`;
    const { server, notes } = one(`vless://${UUID_1}@x.example.com:443?type=xhttp&security=tls&extra=${pct(deep)}#x`);
    expect(JSON.stringify(server?.transport.xhttpExtra).split('{').length - 1).toBeLessThanOrEqual(8);
    expect(notes).toEqual(['vless: xhttp extra settings: what is nested deeper than 8 levels is ignored']);
  });

  it('extra that is not JSON is ignored with a note; the server is kept', () => {
    const { server, notes } = one(`vless://${UUID_1}@x.example.com:443?type=xhttp&security=tls&extra=%7Bbad#x`);
    expect(server?.transport).toEqual({ network: 'xhttp' });
    expect(notes).toEqual(['vless: xhttp extra settings are not valid JSON and are ignored']);
  });
});

describe('share links: rejected entries say why and mask credentials', () => {
  it.each(REJECTED)('%s', (_title, link, reason, secret) => {
    const { server, reason: got, excerpt } = one(link);
    expect(server).toBeUndefined();
    expect(got).toMatch(reason);
    expect(excerpt).toBeTruthy();
    if (secret) {
      expect(excerpt).not.toContain(secret);
      expect(got).not.toContain(secret);
    }
  });

  it('a list keeps the good entries, and reports the bad ones with their 1-based lines', () => {
    const list = [
      '# my servers',
      `vless://${UUID_1}@a.example.com:443?security=tls#A`,
      '',
      `vless://${UUID_1}@b.example.com:99999#B`,
      '   ',
      `trojan://pw12@c.example.com:443#C`,
      'garbage line',
    ].join('\r\n');
    const result = parseLinkList(list);
    expect(result.servers.map((s) => s.name)).toEqual(['A', 'C']);
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([
      [4, 'vless: port 99999 out of range (1–65535)'],
      [7, 'not a share link (expected scheme://…)'],
    ]);
  });

  it('excerpts mask user info, UUIDs, password parameters and opaque base64 payloads', () => {
    const result = parseLinkList(
      [
        `vless://${UUID_1}@v.example.com:1?security=reality`,
        `hysteria2://topsecret@h.example.com:443/?obfs=salamander&obfs-password=`,
        `vmess://${b64(JSON.stringify({ add: 'x.example.com', port: 'x', id: UUID_2 }))}`,
      ].join('\n'),
    );
    const excerpts = result.rejected.map((r) => r.excerpt).join(' ');
    expect(excerpts).not.toContain(UUID_1);
    expect(excerpts).not.toContain('topsecret');
    expect(excerpts).not.toContain(b64(JSON.stringify({ add: 'x.example.com', port: 'x', id: UUID_2 })).slice(0, 20));
    expect(excerpts).toContain('vmess://<base64,');
  });
});

describe('share links: declared IPv6 support (ipv6=1 / ipv6=0, spec/monitor.md ipv6_declared)', () => {
  const DECLARED: [string, string, boolean][] = [
    ['vless ipv6=1', `vless://${UUID_1}@v.example.com:443?security=tls&sni=v.example.com&ipv6=1#V`, true],
    ['vless ipv6=0', `vless://${UUID_1}@v.example.com:443?security=tls&ipv6=0#V`, false],
    ['trojan IPV6=true (any case)', `trojan://pw12@t.example.com:443?IPV6=true#T`, true],
    ['vmess URL shape', `vmess://${UUID_1}@m.example.com:443?type=ws&ipv6=1#M`, true],
    ['vmess JSON field', `vmess://${b64(JSON.stringify({ v: '2', ps: 'J', add: 'j.example.com', port: '443', id: UUID_1, aid: '0', net: 'tcp', ipv6: '0' }))}`, false],
    ['vmess JSON field as a number', `vmess://${b64(JSON.stringify({ v: '2', ps: 'J', add: 'j.example.com', port: 443, id: UUID_1, ipv6: 1 }))}`, true],
    ['shadowsocks SIP002', `ss://${b64url('chacha20-ietf-poly1305:pw')}@s.example.com:8388/?ipv6=1#S`, true],
    ['hysteria2', `hysteria2://pw@h.example.com:443/?sni=h.example.com&ipv6=0#H`, false],
    ['tuic', `tuic://${UUID_1}:pw@u.example.com:443?congestion_control=bbr&ipv6=1#U`, true],
    ['socks', `socks://${b64('user:pass')}@k.example.com:1080?ipv6=0#K`, false],
  ];

  it.each(DECLARED)('%s', (_title, link, expected) => {
    const { server, notes } = one(link);
    expect(server?.ipv6).toBe(expected);
    expect(notes).toEqual([]);
  });

  it('a link without ipv6 declares nothing (the monitor may verify it)', () => {
    const { server } = one(`vless://${UUID_1}@v.example.com:443?security=tls#V`);
    expect(server).toBeDefined();
    expect(server && 'ipv6' in server).toBe(false);
  });

  it('a value that is neither 1 nor 0 declares nothing and says so; the server is kept', () => {
    const { server, notes } = one(`vless://${UUID_1}@v.example.com:443?ipv6=maybe#V`);
    expect(server?.name).toBe('V');
    expect(server?.ipv6).toBeUndefined();
    expect(notes).toEqual(['ipv6="maybe" is neither 1 nor 0: IPv6 support not declared']);
  });

  it('a query ipv6 on a vmess JSON link overrides the JSON field', () => {
    const payload = b64(JSON.stringify({ v: '2', ps: 'J', add: 'j.example.com', port: '443', id: UUID_1, ipv6: '0' }));
    expect(one(`vmess://${payload}?ipv6=1`).server?.ipv6).toBe(true);
  });
});
