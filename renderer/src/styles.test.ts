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
