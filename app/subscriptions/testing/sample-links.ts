/**
 * Realistic, deterministic subscription content for tests and the parse benchmark: a mix of
 * schemes and transports, names with emoji and Persian / Russian text, IPv6 hosts, the way
 * provider panels write them. Seeded, so the same call always yields the same list.
 */
import { mulberry32 } from '../../testing/random';

const COUNTRIES = [
  ['🇩🇪', 'Germany', 'آلمان', 'Германия'],
  ['🇳🇱', 'Netherlands', 'هلند', 'Нидерланды'],
  ['🇫🇮', 'Finland', 'فنلاند', 'Финляндия'],
  ['🇹🇷', 'Türkiye', 'ترکیه', 'Турция'],
  ['🇦🇪', 'UAE', 'امارات', 'ОАЭ'],
  ['🇺🇸', 'USA', 'آمریکا', 'США'],
] as const;

const KEYS_32 = [
  'sL8zmnxyjPS/2yCNOjGTYE+MNT0d1n7qyX5MTGyjmPQ=',
  'Sfx3vWWTWk01ql38iZXgJjPChVYqC7hPjzm8MLsarHQ=',
  'WtL40F7pN+iJmnh3uy3ZGDDWCoORTcvdTrIY7uOsFn4=',
  'UC4d6xFjHGU/Ks00nN4LjGcgL1Fpz1nBZ1KbupPvo+A=',
];

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** `count` share links of mixed schemes. */
export function sampleLinks(count: number, seed = 1): string[] {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const links: string[] = [];
  for (let i = 0; i < count; i++) {
    const [flag, en, fa, ru] = pick(COUNTRIES);
    const name = `${flag} ${pick([en, fa, ru])} ${i + 1}`;
    const fragment = encodeURIComponent(name);
    const host = random() < 0.1 ? `[2a01:4f8:c17:${(i % 65535).toString(16)}::1]` : `s${i}.${pick(['example.com', 'example.net', 'cdn.example.org'])}`;
    const port = 1024 + Math.floor(random() * 60000);
    const uuid = uuidFrom(random);
    switch (i % 10) {
      case 0:
      case 1: {
        const json = {
          v: '2',
          ps: name,
          add: host.replace(/^\[|\]$/g, ''),
          port: String(port),
          id: uuid,
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
        };
        links.push(`vmess://${b64(JSON.stringify(json))}`);
        break;
      }
      case 2:
      case 3:
        links.push(
          `vless://${uuid}@${host}:${port}?type=tcp&security=reality&sni=www.microsoft.com&fp=chrome&pbk=58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA&sid=6ba85179e30d4fc2&spx=%2F&flow=xtls-rprx-vision#${fragment}`,
        );
        break;
      case 4:
        links.push(`vless://${uuid}@${host}:443?encryption=none&type=ws&security=tls&sni=cdn.example.com&host=cdn.example.com&path=%2Fvless%3Fed%3D2048#${fragment}`);
        break;
      case 5:
        links.push(`trojan://${encodeURIComponent(`tr-${uuid.slice(0, 8)}@pw`)}@${host}:${port}?security=tls&sni=tr.example.com&type=grpc&serviceName=grpc-${i}#${fragment}`);
        break;
      case 6:
        links.push(`ss://${b64url(`chacha20-ietf-poly1305:${uuid.slice(0, 12)}`)}@${host}:${port}#${fragment}`);
        break;
      case 7:
        links.push(`ss://2022-blake3-aes-256-gcm:${encodeURIComponent(`${pick(KEYS_32)}:${pick(KEYS_32)}`)}@${host}:${port}#${fragment}`);
        break;
      case 8:
        links.push(`hysteria2://${uuid}@${host}:${port}/?sni=hy.example.com&obfs=salamander&obfs-password=${uuid.slice(0, 10)}#${fragment}`);
        break;
      default:
        links.push(`tuic://${uuid}:${uuid.slice(0, 8)}@${host}:${port}?congestion_control=bbr&udp_relay_mode=native&alpn=h3&sni=tuic.example.com#${fragment}`);
    }
  }
  return links;
}

/** A subscription body as panels serve it: base64 of CRLF-separated links, wrapped at 76 columns. */
export function sampleSubscriptionBody(count: number, seed = 1): string {
  const encoded = b64(sampleLinks(count, seed).join('\r\n'));
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return lines.join('\r\n');
}
