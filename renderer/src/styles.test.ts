import { describe, expect, it } from 'vitest';
import stylesheet from './styles.css?raw';

/** Line numbers of the blocks opened and never closed. */
function unclosedBlocks(css: string): number[] {
  const open: number[] = [];
  css
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .split('\n')
    .forEach((line, index) => {
      for (const char of line) {
        if (char === '{') open.push(index + 1);
        if (char === '}') open.pop();
      }
    });
  return open;
}

/**
 * A rule left unclosed is no error to the bundler: CSS nesting makes every later rule a child of
 * it, and they silently stop applying (the Settings tabs and the Routing page once lost their look
 * to an unclosed `.share-link`).
 */
describe('the stylesheet', () => {
  it('closes every block it opens', () => {
    expect(unclosedBlocks(stylesheet)).toEqual([]);
  });

  it('is checked in a way that finds an unclosed rule', () => {
    expect(unclosedBlocks('.a {\n  color: red;\n/* b */\n.b { color: blue; }\n')).toEqual([1]);
  });
});

/** The hue (0–360°) of a #rrggbb colour. */
function hueOf(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const d = max - Math.min(r, g, b);
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

/** Each theme's custom properties (the light one is `:root {`, the dark one `:root[data-theme='dark'] {`). */
function themes(css: string): Record<string, string>[] {
  return [...css.matchAll(/:root(?:\[data-theme='dark'\])?\s*\{([^}]*)\}/g)].map((block) =>
    Object.fromEntries([...(block[1] as string).matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})/gi)].map((m) => [m[1] as string, m[2] as string])),
  );
}

describe("the Auto timeline's colours", () => {
  it('draws no server band in the green of a return or the red of a switch, in either theme', () => {
    const found = themes(stylesheet);
    expect(found).toHaveLength(2);
    for (const theme of found) {
      const bands = Object.keys(theme).filter((name) => name.startsWith('--band-') && name !== '--band-empty');
      expect(bands.length).toBeGreaterThanOrEqual(5);
      for (const band of bands) {
        for (const marker of ['--good', '--poor']) {
          const apart = Math.abs(hueOf(theme[band] as string) - hueOf(theme[marker] as string));
          expect(Math.min(apart, 360 - apart), `${band} ${theme[band]} against ${marker} ${theme[marker]}`).toBeGreaterThanOrEqual(30);
        }
      }
    }
  });
});
