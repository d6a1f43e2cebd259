#!/usr/bin/env node
// Draws the app and tray icons (a shield) into assets/ as PNG, plus the same shape as SVG, with
// Node built-ins only. Run once after changing the shape: `node scripts/make-icons.mjs`.
// The PNGs are committed; nothing at build or test time depends on this script.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const assets = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

// --- PNG encoding (RGBA, 8 bits per channel) ---
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function png(size, pixel) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel(x, y);
      raw.set([r, g, b, a], y * (size * 4 + 1) + 1 + x * 4);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// --- Shapes in unit coordinates (0..1), tested per sample ---
/** A shield: flat shoulders, straight sides, a rounded point at the bottom. */
function inShield(x, y, scale = 1) {
  const cx = 0.5;
  const top = 0.5 - 0.4 * scale;
  const shoulder = 0.5 - 0.05 * scale;
  const bottom = 0.5 + 0.42 * scale;
  const half = 0.36 * scale;
  if (y < top || y > bottom) return false;
  // The top edge arches up slightly towards the middle.
  const dx = (x - cx) / half;
  if (Math.abs(dx) > 1) return false;
  if (y < top + 0.05 * scale * dx * dx) return false;
  if (y <= shoulder) return true;
  const t = (y - shoulder) / (bottom - shoulder);
  return Math.abs(dx) <= Math.pow(1 - t, 0.75);
}
function inRoundedSquare(x, y, inset = 0.04, radius = 0.2) {
  const lo = inset;
  const hi = 1 - inset;
  if (x < lo || x > hi || y < lo || y > hi) return false;
  const cx = Math.min(Math.max(x, lo + radius), hi - radius);
  const cy = Math.min(Math.max(y, lo + radius), hi - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

/** Renders `paint(u, v) → [r,g,b,a] | null` with 4×4 supersampling. */
function render(size, paint) {
  const n = 4;
  return png(size, (px, py) => {
    let r = 0;
    let g = 0;
    let b = 0;
    let a = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const c = paint((px + (i + 0.5) / n) / size, (py + (j + 0.5) / n) / size);
        if (!c) continue;
        r += c[0] * c[3];
        g += c[1] * c[3];
        b += c[2] * c[3];
        a += c[3];
      }
    }
    if (a === 0) return [0, 0, 0, 0];
    return [Math.round(r / a), Math.round(g / a), Math.round(b / a), Math.round(a / (n * n))];
  });
}

const NAVY = [31, 78, 121, 255];
const WHITE = [255, 255, 255, 255];
const GREEN = [46, 157, 91, 255];
const GREY = [138, 143, 152, 255];
const BLACK = [0, 0, 0, 255];

const app = (u, v) => {
  if (inShield(u, v, 0.62) && !inShield(u, v, 0.42)) return WHITE;
  if (inShield(u, v, 0.3)) return WHITE;
  return inRoundedSquare(u, v) ? NAVY : null;
};
const trayIn = (color) => (u, v) => (inShield(u, v, 1.05) && !inShield(u, v, 0.45) ? color : inShield(u, v, 0.25) ? color : null);

mkdirSync(assets, { recursive: true });
const files = {
  'icon.png': render(512, app),
  'tray-connected.png': render(32, trayIn(GREEN)),
  'tray-disconnected.png': render(32, trayIn(GREY)),
  // macOS menu bar: a black "template" image the system tints; @2x for Retina.
  'trayTemplate.png': render(16, trayIn(BLACK)),
  'trayTemplate@2x.png': render(32, trayIn(BLACK)),
};
for (const [name, data] of Object.entries(files)) writeFileSync(join(assets, name), data);

// The same shape as SVG (for documentation and the web), traced from the shield function.
function shieldPath(scale) {
  const points = [];
  for (let i = 0; i <= 40; i++) {
    const v = 0.5 - 0.4 * scale + (0.82 * scale * i) / 40;
    let lo = 0.5;
    while (lo > 0 && inShield(lo - 0.002, v, scale)) lo -= 0.002;
    points.push([lo, v]);
  }
  const left = points.filter(([u]) => u < 0.5);
  const right = [...left].reverse().map(([u, v]) => [1 - u, v]);
  return `M${[...left, ...right].map(([u, v]) => `${(u * 512).toFixed(1)},${(v * 512).toFixed(1)}`).join('L')}Z`;
}
const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">
  <rect x="20" y="20" width="472" height="472" rx="102" fill="rgb(${NAVY.slice(0, 3)})"/>
  <path fill="#fff" fill-rule="evenodd" d="${shieldPath(0.62)} ${shieldPath(0.42)}"/>
  <path fill="#fff" d="${shieldPath(0.3)}"/>
</svg>
`;
writeFileSync(join(assets, 'icon.svg'), svg);
process.stdout.write(`icons written to ${assets}: ${[...Object.keys(files), 'icon.svg'].join(', ')}\n`);
