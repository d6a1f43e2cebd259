/**
 * Seeded randomness for tests, the lab and the benches (one copy for all of them). Every value a
 * lab world is made of (credentials, latencies, countries, names) is drawn from a stream keyed by
 * `seed`, a purpose and the server's index, so `--seed` reproduces the world exactly and server i
 * keeps its credentials and latency whatever the server count.
 */
export type Random = () => number;

/** FNV-1a over the label: a stable 32-bit key per (seed, purpose, index). */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough to spread test data (not for secrets that matter). */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seeded(seed: number, ...label: (string | number)[]): Random {
  return mulberry32(hash32(`${seed}:${label.join(':')}`));
}

export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function randomHex(random: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += Math.floor(random() * 16).toString(16);
  return out;
}

/** A version-4-shaped UUID drawn from the stream. */
export function randomUuid(random: Random): string {
  const hex = randomHex(random, 32).split('');
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(random() * 4)] as string;
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

export function randomPassword(random: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += PASSWORD_ALPHABET[Math.floor(random() * PASSWORD_ALPHABET.length)];
  return out;
}
