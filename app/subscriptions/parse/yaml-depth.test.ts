import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseSubscription } from './index';
import { yamlNestingBound } from './yaml-depth';

describe('yamlNestingBound', () => {
  it('is small for real configs, whatever brackets and quotes their names hold', () => {
    const config = [
      'proxies:',
      '  - name: "DE [01] {x"',
      '    type: vmess',
      '    ws-opts: {path: "/p[", headers: {Host: cdn.example.com}}',
      '    alpn: [h2, http/1.1]',
      "  - {name: 'it''s [', type: ss, port: 1}",
      ...Array.from({ length: 200 }, (_, i) => `  - name: VIP [${i}\n    type: ss`),
      '# a comment [[[[',
      'proxy-groups:',
      '  - {name: Proxy, type: select, proxies: [a, b]}',
    ].join('\n');
    expect(yamlNestingBound(config)).toBeLessThanOrEqual(8);
    expect(yamlNestingBound(stringify({ proxies: [{ name: 'a', 'ws-opts': { headers: { Host: 'x' } }, alpn: ['h2'] }] }))).toBeLessThanOrEqual(8);
  });

  it.each([
    ['flow sequences on one line', `proxies: ${'['.repeat(300)}${']'.repeat(300)}`, 300],
    ['flow sequences one per line', `proxies:\n${'  [\n'.repeat(300)}${'  ]\n'.repeat(300)}`, 300],
    ['flow mappings', `proxies: [${'{a: '.repeat(300)}1${'}'.repeat(300)}]`, 301],
    ['compact block sequences', `proxies:\n${'- '.repeat(300)}x`, 300],
    ['indentation', `proxies:\n${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} 1`, 100],
  ])('is at least the real depth: %s', (_name, text, depth) => {
    expect(yamlNestingBound(text)).toBeGreaterThanOrEqual(depth);
  });
});

describe('deeply nested Clash YAML', () => {
  // Two deep bodies in a row once aborted the process: "FATAL ERROR: RegExpCompiler Allocation
  // failed - process out of memory", after ~1 s of stack overflow in the YAML library.
  it('is refused quickly, with the reason, and never reaches the YAML library', () => {
    for (const body of [`proxies: ${'['.repeat(1000)}${']'.repeat(1000)}`, `proxies: ${'['.repeat(10_000)}${']'.repeat(10_000)}`, `proxies:\n${'- '.repeat(10_000)}x`]) {
      const started = performance.now();
      const result = parseSubscription(body);
      expect(performance.now() - started).toBeLessThan(200);
      expect(result).toMatchObject({ format: 'clash-yaml', servers: [], rejected: [{ line: 1, reason: expect.stringMatching(/nests \d+ levels deep/) }] });
    }
  });
});
