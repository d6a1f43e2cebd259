/**
 * The lab's world as data: which servers exist, their protocol, transport, credentials, exit and
 * relay addresses, country, name and default latency, and which subscription lists them. Pure and
 * deterministic in (options, seed): the same flags always build the same world.
 */
import { HOME, PLACES, type Place, flagEmoji } from './geo';
import { randomInt, randomPassword, randomUuid, seeded } from '../../app/testing/random';

export type LabProtocol = 'vmess' | 'vless' | 'trojan' | 'shadowsocks';
export const LAB_PROTOCOLS: readonly LabProtocol[] = ['vmess', 'vless', 'trojan', 'shadowsocks'];

/** Ciphers Debian's v2ray 4.34 runs as a shadowsocks server. */
export const SS_METHODS = ['chacha20-poly1305', 'aes-128-gcm', 'aes-256-gcm'] as const;

export const TLS_SERVER_NAME = 'lab.steadfast.test';
export const WS_HOST = 'cdn.lab.steadfast.test';

/** The limit the address plan below supports without overlaps (exits 127.0.0.x/127.1.x.y, relays 127.0.2+.x). */
export const MAX_SERVERS = 1000;
export const MAX_SUBSCRIPTIONS = 26;

export interface WorldOptions {
  servers: number;
  subscriptions: number;
  seed: number;
  latency: [number, number];
}

export interface ServerSpec {
  index: number;
  /** "A1" = subscription A, server 1. */
  id: string;
  subscription: string;
  protocol: LabProtocol;
  name: string;
  /** vmess / vless user id. */
  uuid: string;
  /** trojan / shadowsocks password. */
  password: string;
  ssMethod: (typeof SS_METHODS)[number];
  network: 'tcp' | 'ws';
  wsPath: string;
  security: 'none' | 'tls';
  exitIp: string;
  /**
   * The server carries IPv6: its traffic to IPv6 destinations leaves from ::1. The others leave
   * only from their IPv4 exit address, so they refuse IPv6 (v2ray cannot dial ::1 from an IPv4
   * sendThrough), as many real servers do.
   */
  ipv6: boolean;
  relayAddress: string;
  place: Place;
  latencyMs: number;
  /**
   * A TLS server's certificate pin (SHA-256 of the whole certificate, hex), as panels put it in
   * share links (`pcs=`) since Xray dropped `allowInsecure`: the certificate is made at start, so
   * the lab fills this in then (null before, and for servers without TLS).
   */
  certificatePin: string | null;
}

export interface SubscriptionSpec {
  id: string;
  title: string;
  serverIds: string[];
}

export interface World {
  seed: number;
  servers: ServerSpec[];
  subscriptions: SubscriptionSpec[];
  home: Place;
}

/**
 * Exit (sendThrough) address of server i: 127.0.0.11 … 127.0.0.250, then 127.1.x.y. Never
 * 127.0.0.1, which is the user's own address (blocked-here and "offline" key on it).
 */
export function exitAddress(index: number): string {
  if (index < 240) return `127.0.0.${11 + index}`;
  const j = index - 240;
  return `127.1.${Math.floor(j / 250)}.${1 + (j % 250)}`;
}

/** Server i carries IPv6 when i % 5 === 1 (A2, …): every protocol gets one over enough servers. */
export function carriesIpv6(index: number): boolean {
  return index % 5 === 1;
}

/** Front address of server i's relay: 127.0.2.1 … 127.0.2.250, then 127.0.3.x, … (one per server). */
export function relayAddress(index: number): string {
  return `127.0.${2 + Math.floor(index / 250)}.${1 + (index % 250)}`;
}

/** vmess, vless, trojan, shadowsocks in turn; the transport variant changes every 4 servers. */
function shapeOf(index: number): Pick<ServerSpec, 'protocol' | 'network' | 'security'> {
  const protocol = LAB_PROTOCOLS[index % 4] as LabProtocol;
  const variant = Math.floor(index / 4) % 3;
  switch (protocol) {
    case 'vmess':
      return { protocol, network: variant === 0 ? 'tcp' : 'ws', security: 'none' };
    case 'vless':
      return { protocol, network: variant === 1 ? 'ws' : 'tcp', security: variant === 2 ? 'tls' : 'none' };
    case 'trojan':
      return { protocol, network: variant === 2 ? 'ws' : 'tcp', security: variant === 0 ? 'none' : 'tls' };
    case 'shadowsocks':
      // SIP002 links carry no v2ray transport, so shadowsocks stays plain TCP.
      return { protocol, network: 'tcp', security: 'none' };
  }
}

/** Readable, varied names: emoji flags, Russian and Persian, always carrying the id for humans. */
function nameOf(index: number, id: string, place: Place, protocol: LabProtocol): string {
  switch (index % 5) {
    case 0:
      return `${flagEmoji(place.code)} ${place.city} · ${id}`;
    case 1:
      return `${place.nameRu} ${id}`;
    case 2:
      return `سرور ${place.nameFa} ${id}`;
    case 3:
      return `${id} ${place.name} | ${protocol}`;
    default:
      return `${flagEmoji(place.code)} ${place.nameRu} ${id} 🚀`;
  }
}

/** Sizes of n servers split into s contiguous blocks, as even as possible (earlier blocks larger). */
export function blockSizes(servers: number, subscriptions: number): number[] {
  const base = Math.floor(servers / subscriptions);
  const extra = servers % subscriptions;
  return Array.from({ length: subscriptions }, (_, i) => base + (i < extra ? 1 : 0));
}

export function subscriptionId(index: number): string {
  return String.fromCharCode(65 + index);
}

export function buildWorld(options: WorldOptions): World {
  const { seed } = options;
  if (!Number.isInteger(options.servers) || options.servers < 1 || options.servers > MAX_SERVERS) {
    throw new Error(`servers must be an integer in 1..${MAX_SERVERS}, got ${options.servers}`);
  }
  if (!Number.isInteger(options.subscriptions) || options.subscriptions < 1 || options.subscriptions > Math.min(MAX_SUBSCRIPTIONS, options.servers)) {
    throw new Error(`subscriptions must be an integer in 1..${Math.min(MAX_SUBSCRIPTIONS, options.servers)}, got ${options.subscriptions}`);
  }
  const [lo, hi] = options.latency;
  if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 0 && hi >= lo && hi <= 60_000)) {
    throw new Error(`latency must be a range lo-hi of whole milliseconds with 0 <= lo <= hi <= 60000, got ${lo}-${hi}`);
  }
  // The seed rotates where the country list starts, so servers get varied, reproducible countries.
  const placeOffset = randomInt(seeded(seed, 'places'), 0, PLACES.length - 1);
  const servers: ServerSpec[] = [];
  const subscriptions: SubscriptionSpec[] = [];
  let index = 0;
  blockSizes(options.servers, options.subscriptions).forEach((size, s) => {
    const sub = subscriptionId(s);
    const ids: string[] = [];
    for (let k = 1; k <= size; k += 1, index += 1) {
      const id = `${sub}${k}`;
      const shape = shapeOf(index);
      const place = PLACES[(index + placeOffset) % PLACES.length] as Place;
      const credentials = seeded(seed, 'credentials', index);
      servers.push({
        index,
        id,
        subscription: sub,
        ...shape,
        name: nameOf(index, id, place, shape.protocol),
        uuid: randomUuid(credentials),
        password: randomPassword(credentials, 16),
        ssMethod: SS_METHODS[Math.floor(index / 4) % SS_METHODS.length] as (typeof SS_METHODS)[number],
        wsPath: `/ws/${id.toLowerCase()}`,
        exitIp: exitAddress(index),
        ipv6: carriesIpv6(index),
        relayAddress: relayAddress(index),
        place,
        latencyMs: randomInt(seeded(seed, 'latency', index), lo, hi),
        certificatePin: null,
      });
      ids.push(id);
    }
    subscriptions.push({ id: sub, title: `Lab ${sub} 🛰`, serverIds: ids });
  });
  return { seed, servers, subscriptions, home: HOME };
}
