/**
 * The servers users have in 2026, hosted by real Xray and sing-box server processes: an opt-in
 * block beside the v2ray world (`LabOptions.modern`, `npm run lab -- --modern`), listed by its own
 * subscription. It is off by default because the v2ray world is what every existing test, the demo
 * and the benchmarks count on: its ids, protocols and order stay exactly as they are, and a lab
 * without these cores still starts. Pure and deterministic in the seed, like world.ts.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { PLACES, type Place, flagEmoji } from './geo';
import { type Random, randomHex, randomInt, randomPassword, randomUuid, seeded } from '../../app/testing/random';

export type ModernCore = 'xray' | 'sing-box';

export const MODERN_KINDS = [
  'vless-reality-vision',
  'vless-xhttp',
  'vless-grpc-tls',
  'vmess-httpupgrade',
  'vless-httpupgrade',
  'trojan-grpc-tls',
  'hysteria2-salamander-hopping',
  'tuic-v5',
  'wireguard',
  'shadowtls-v3',
  'shadowsocks-2022',
  'anytls',
  'hysteria-v1',
] as const;
export type ModernKind = (typeof MODERN_KINDS)[number];

export type ModernProtocol = 'vless' | 'vmess' | 'trojan' | 'shadowsocks' | 'hysteria2' | 'tuic' | 'wireguard' | 'anytls' | 'hysteria';

interface KindShape {
  protocol: ModernProtocol;
  /** Which real core hosts it (sing-box here has no WireGuard: Xray's inbound hosts that). */
  core: ModernCore;
  /** What the relay carries: QUIC-based protocols and WireGuard are UDP. */
  carrier: 'tcp' | 'udp';
}

export const KIND_SHAPES: Record<ModernKind, KindShape> = {
  'vless-reality-vision': { protocol: 'vless', core: 'xray', carrier: 'tcp' },
  'vless-xhttp': { protocol: 'vless', core: 'xray', carrier: 'tcp' },
  'vless-grpc-tls': { protocol: 'vless', core: 'xray', carrier: 'tcp' },
  'vmess-httpupgrade': { protocol: 'vmess', core: 'xray', carrier: 'tcp' },
  'vless-httpupgrade': { protocol: 'vless', core: 'xray', carrier: 'tcp' },
  'trojan-grpc-tls': { protocol: 'trojan', core: 'xray', carrier: 'tcp' },
  'hysteria2-salamander-hopping': { protocol: 'hysteria2', core: 'sing-box', carrier: 'udp' },
  'tuic-v5': { protocol: 'tuic', core: 'sing-box', carrier: 'udp' },
  wireguard: { protocol: 'wireguard', core: 'xray', carrier: 'udp' },
  'shadowtls-v3': { protocol: 'shadowsocks', core: 'sing-box', carrier: 'tcp' },
  'shadowsocks-2022': { protocol: 'shadowsocks', core: 'xray', carrier: 'tcp' },
  anytls: { protocol: 'anytls', core: 'sing-box', carrier: 'tcp' },
  'hysteria-v1': { protocol: 'hysteria', core: 'sing-box', carrier: 'udp' },
};

/** The modern block's subscription. Two letters, so it never meets a v2ray subscription (A…Z). */
export const MODERN_SUBSCRIPTION = 'RC';
/** REALITY's server name: the lab's own TLS site answers for it (never a real site). */
export const REALITY_SERVER_NAME = 'www.reality.lab.test';
/** ShadowTLS v3's handshake name: the lab's own TLS site again. */
export const SHADOWTLS_SERVER_NAME = 'cdn.shadowtls.lab.test';
export const SS2022_METHOD = '2022-blake3-aes-128-gcm';
/** The ShadowTLS v3 layer wraps Shadowsocks with this (AEAD) cipher. */
export const SHADOWTLS_INNER_METHOD = 'aes-128-gcm';
/** Hysteria v1's speeds (Mbit/s): both ends must name them, as its congestion control starts from them. */
export const HYSTERIA_V1_MBPS = 100;
/** Ports in the Hysteria2 server's hopping range (all lead to its one port through the relay). */
export const HOPPING_PORTS = 4;
/** The tunnel addresses of the lab's WireGuard peer and server. */
export const WIREGUARD_CLIENT_ADDRESS = '10.66.0.2/32';

export interface X25519Pair {
  /** base64url without padding, as Xray's REALITY writes them. */
  privateKey: string;
  publicKey: string;
}

export interface ModernServerSpec {
  /** 0-based within the modern block. */
  index: number;
  /** "RC1" … */
  id: string;
  subscription: string;
  kind: ModernKind;
  protocol: ModernProtocol;
  core: ModernCore;
  carrier: 'tcp' | 'udp';
  name: string;
  uuid: string;
  /** trojan / hysteria2 / tuic / anytls / shadowtls-inner password; Hysteria v1's auth string. */
  password: string;
  /** xhttp / httpupgrade path. */
  path: string;
  /** gRPC service name. */
  serviceName: string;
  /** REALITY: the server's key pair and the short id the client sends. */
  reality: X25519Pair & { shortId: string };
  /** WireGuard: the server's and the client's key pairs (standard base64). */
  wireguard: { server: X25519Pair; client: X25519Pair };
  /** Shadowsocks 2022: base64 of 16 random bytes (the key of 2022-blake3-aes-128-gcm). */
  ss2022Key: string;
  /** Hysteria2 salamander (and Hysteria v1 xplus) obfuscation password. */
  obfsPassword: string;
  /** ShadowTLS v3 password. */
  shadowTlsPassword: string;
  exitIp: string;
  relayAddress: string;
  place: Place;
  latencyMs: number;
}

/** Exit address of modern server k: 127.2.0.1, 127.2.0.2, … (outside the v2ray world's plan). */
export function modernExitAddress(index: number): string {
  return `127.2.${Math.floor(index / 250)}.${1 + (index % 250)}`;
}

/** Front (relay) address of modern server k: 127.3.0.1, … */
export function modernRelayAddress(index: number): string {
  return `127.3.${Math.floor(index / 250)}.${1 + (index % 250)}`;
}

function randomBytes(random: Random, n: number): Buffer {
  return Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
}

/** An X25519 key pair from 32 drawn bytes (the core clamps the scalar itself). */
export function x25519From(secret: Buffer, encoding: 'base64url' | 'base64'): X25519Pair {
  // PKCS#8 wrapping of a raw X25519 private key: the fixed prefix, then the 32 bytes.
  const der = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), secret]);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicRaw = spki.subarray(spki.length - 32);
  const strip = (s: string) => (encoding === 'base64url' ? s.replace(/=+$/, '') : s);
  return { privateKey: strip(secret.toString(encoding)), publicKey: strip(publicRaw.toString(encoding)) };
}

function nameOf(index: number, id: string, place: Place, kind: ModernKind): string {
  return index % 2 === 0 ? `${flagEmoji(place.code)} ${place.city} · ${id} ${kind}` : `${id} ${place.name} | ${kind}`;
}

export function buildModernServers(seed: number, latency: [number, number]): ModernServerSpec[] {
  const [lo, hi] = latency;
  const placeOffset = randomInt(seeded(seed, 'modern-places'), 0, PLACES.length - 1);
  return MODERN_KINDS.map((kind, index) => {
    const id = `${MODERN_SUBSCRIPTION}${index + 1}`;
    const place = PLACES[(index + placeOffset) % PLACES.length] as Place;
    const credentials = seeded(seed, 'modern-credentials', index);
    const keys = seeded(seed, 'modern-keys', index);
    return {
      index,
      id,
      subscription: MODERN_SUBSCRIPTION,
      kind,
      ...KIND_SHAPES[kind],
      name: nameOf(index, id, place, kind),
      uuid: randomUuid(credentials),
      password: randomPassword(credentials, 16),
      path: `/${kind.split('-')[1] ?? 'p'}/${id.toLowerCase()}`,
      serviceName: `lab.${id.toLowerCase()}.Tun`,
      reality: { ...x25519From(randomBytes(keys, 32), 'base64url'), shortId: randomHex(credentials, 8) },
      wireguard: { server: x25519From(randomBytes(keys, 32), 'base64'), client: x25519From(randomBytes(keys, 32), 'base64') },
      ss2022Key: randomBytes(keys, 16).toString('base64'),
      obfsPassword: randomPassword(credentials, 12),
      shadowTlsPassword: randomPassword(credentials, 16),
      exitIp: modernExitAddress(index),
      relayAddress: modernRelayAddress(index),
      place,
      latencyMs: randomInt(seeded(seed, 'modern-latency', index), lo, hi),
    };
  });
}

/**
 * The lab's address inside its WireGuard network. WireGuard carries IP packets, and the server's
 * userspace network stack drops packets to a loopback destination (martians), so a WireGuard
 * client cannot ask for 127.0.0.1 through it: it asks for this address instead, and the server's
 * freedom outbound redirects every destination to 127.0.0.1 (same port). Packets to it exist only
 * inside the tunnel, whose endpoints are on loopback.
 */
export const WIREGUARD_SERVER_ADDRESS = '10.66.0.1';

/** `url` (on 127.0.0.1) as a client of `spec` asks for it: through the WireGuard network for WireGuard. */
export function urlThrough(spec: Pick<ModernServerSpec, 'kind'>, url: string): string {
  if (spec.kind !== 'wireguard') return url;
  const u = new URL(url);
  if (u.hostname === '127.0.0.1') u.hostname = WIREGUARD_SERVER_ADDRESS;
  return u.toString();
}
