/**
 * An upper bound on how deeply a YAML text nests, found in one pass without parsing it.
 *
 * Why: the YAML library composes nodes recursively. A body nested a few thousand levels deep
 * (`proxies: [[[[…]]]]`, `- - - - …`) takes hundreds of milliseconds to fail with a stack
 * overflow, and a second such body can abort the whole process (V8 compiles a regexp with the
 * stack nearly exhausted: "FATAL ERROR: RegExpCompiler Allocation failed - process out of
 * memory"). Real Clash configs nest about five levels, so such a body is refused before parsing.
 *
 * The bound counts, per line, the spaces of indentation, the compact block indicators that open
 * a level on the same line (`- - x`, `? `, `: `), and the flow collections (`[`, `{`) open at
 * that point; quoted scalars and comments are skipped, and in block context a bracket counts only
 * where a value starts (so `name: DE [01]` opens nothing).
 */
export function yamlNestingBound(text: string): number {
  let max = 0;
  let flow = 0;
  let quote: '"' | "'" | null = null;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let end = text.indexOf('\n', lineStart);
    if (end < 0) end = text.length;
    let i = lineStart;
    let block = 0;
    if (quote === null && flow === 0) {
      while (i < end && text.charCodeAt(i) === 32) i++;
      block = i - lineStart;
      // Compact indicators: "- - - x" nests three sequences on one line.
      while (i + 1 < end && (text[i] === '-' || text[i] === '?' || text[i] === ':') && text[i + 1] === ' ') {
        block++;
        i += 2;
        while (i < end && text.charCodeAt(i) === 32) i++;
      }
    }
    // Where a value may start in block context: the line's content, or after ": ".
    let valueStart = true;
    for (; i < end; i++) {
      const c = text[i];
      if (quote !== null) {
        if (c === '\\' && quote === '"') i++;
        else if (c === quote) {
          if (quote === "'" && text[i + 1] === "'") i++;
          else quote = null;
        }
        continue;
      }
      if (c === ' ' || c === '\t' || c === '\r') continue;
      if (c === '#' && (i === lineStart || /\s/.test(text[i - 1] ?? ' '))) break;
      const structural = flow > 0 || valueStart;
      if (structural && (c === '"' || c === "'") && (flow === 0 || /[[{,:\s]/.test(text[i - 1] ?? ' '))) quote = c;
      else if (structural && (c === '[' || c === '{')) max = Math.max(max, block + ++flow);
      else if (flow > 0 && (c === ']' || c === '}')) flow--;
      valueStart = flow === 0 && c === ':' && /\s/.test(text[i + 1] ?? ' ');
      if (flow > 0) valueStart = false;
    }
    max = Math.max(max, block + flow);
    lineStart = end + 1;
  }
  return max;
}
