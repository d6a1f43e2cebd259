import fc from 'fast-check';

/**
 * Text mutations applied to valid inputs: what a truncated download, a bad copy-paste, a
 * provider's broken panel or a hostile server does to a body. Positions are plain numbers taken
 * modulo the text's length so fast-check can shrink them.
 */
export type MutationOp = 'truncate' | 'replace' | 'insert' | 'delete' | 'duplicate' | 'number' | 'case';

export interface Mutation {
  op: MutationOp;
  at: number;
  length: number;
  text: string;
}

/** Characters and fragments that break parsers: URL and JSON syntax, escapes, controls, RTL, surrogates. */
export const NASTY_FRAGMENTS = [
  '%', '%%', '%zz', '%E2%82', '%00', '%0A', '%ff', '%25', '@', ':', '/', '?', '#', '&', '=', ';', ',',
  '[', ']', '{', '}', '"', "'", '\\', '\\u0000', '\n', '\r', '\r\n', '\t', ' ', '\u0000', '\u001b',
  '\u007f', '\u200f', '\u202e', '\ufeff', '\ud800', '\udfff', '🇮🇷', 'ایران', 'Москва', '中文',
  'e\u0301', '::', '[::1]', '==', '=\n', 'null', 'true', '[]', '{}', '*a', '&a', '<<', '- ', ': ',
  '://', 'vmess://', 'ss://', '\u2028',
] as const;

/** Numbers a field should never hold (out of range, not integers, not finite once parsed). */
export const HUGE_NUMBERS = [
  '0', '-1', '65536', '99999', '4294967296', '99999999999999999999', '1e400', '-0', '1.5', '0x50',
  'NaN', 'Infinity', '１２３', '٤٤٣', '00000000000000000443', '9'.repeat(400),
] as const;

const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_FRAGMENTS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
);

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom<MutationOp>('truncate', 'replace', 'insert', 'delete', 'duplicate', 'number', 'case'),
  at: fc.nat(),
  length: fc.nat({ max: 48 }),
  text: fragment,
});

export function applyMutation(input: string, m: Mutation): string {
  const at = input.length === 0 ? 0 : m.at % (input.length + 1);
  const end = Math.min(input.length, at + Math.max(1, m.length));
  switch (m.op) {
    case 'truncate':
      return input.slice(0, at);
    case 'replace':
      return input.slice(0, at) + m.text + input.slice(at + 1);
    case 'insert':
      return input.slice(0, at) + m.text + input.slice(at);
    case 'delete':
      return input.slice(0, at) + input.slice(end);
    case 'duplicate':
      return input.slice(0, end) + input.slice(at, end) + input.slice(end);
    case 'number': {
      // Replaces the digit run at or after `at` with an absurd number.
      const digits = /\d+/g;
      digits.lastIndex = at;
      const match = digits.exec(input) ?? /\d+/.exec(input);
      const huge = HUGE_NUMBERS[m.length % HUGE_NUMBERS.length] as string;
      return match ? input.slice(0, match.index) + huge + input.slice(match.index + match[0].length) : input + huge;
    }
    case 'case':
      return input.slice(0, at) + swapCase(input.slice(at, end)) + input.slice(end);
  }
}

function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

/** A valid input with 1 to `max` mutations applied. */
export function mutated(base: fc.Arbitrary<string>, max = 3): fc.Arbitrary<string> {
  return fc.tuple(base, fc.array(mutationArb, { minLength: 1, maxLength: max })).map(([text, ms]) => ms.reduce(applyMutation, text));
}

/** Either the valid input as is or a mutated one (half and half). */
export function sometimesMutated(base: fc.Arbitrary<string>, max = 3): fc.Arbitrary<string> {
  return fc.oneof(base, mutated(base, max));
}

/**
 * Replaces or deletes a few nodes of a JSON-like tree with random JSON (wrong types, nulls,
 * huge numbers, deep arrays): the shape a broken panel or a hostile server produces.
 */
export function perturbedJson<T>(base: fc.Arbitrary<T>, max = 3): fc.Arbitrary<unknown> {
  const change = fc.record({ at: fc.nat(), remove: fc.boolean(), value: wrongJsonValue });
  return fc.tuple(base, fc.array(change, { minLength: 1, maxLength: max })).map(([value, changes]) => {
    let tree: unknown = structuredClone(value);
    for (const c of changes) tree = replaceNode(tree, c.at, c.remove, c.value);
    return tree;
  });
}

/** Values of the wrong type for any field, including ones that stress serialisers. */
export const wrongJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 65536, 1e308, -1e308, 0.5, '', ' ', '\u0000', [], {}, [[[[[[]]]]]], '9'.repeat(40)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

function replaceNode(tree: unknown, at: number, remove: boolean, value: unknown): unknown {
  const slots: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    const children: [string | number, unknown][] = Array.isArray(node) ? node.map((child, i) => [i, child]) : Object.entries(node);
    for (const [key, child] of children) {
      slots.push({ parent: node as Record<string, unknown> | unknown[], key });
      walk(child);
    }
  };
  walk(tree);
  if (slots.length === 0) return value;
  const slot = slots[at % slots.length]!;
  if (remove && !Array.isArray(slot.parent)) delete slot.parent[slot.key as string];
  else if (remove && Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
  else (slot.parent as Record<string | number, unknown>)[slot.key] = value;
  return tree;
}

/** Text nesting `depth` levels deep (JSON arrays / objects, YAML flow, block sequences or maps). */
export type NestingKind = 'json-array' | 'json-object' | 'yaml-flow' | 'yaml-flow-map' | 'yaml-block' | 'yaml-indent';

export function deepNesting(kind: NestingKind, depth: number): string {
  switch (kind) {
    case 'json-array':
      return '['.repeat(depth) + ']'.repeat(depth);
    case 'json-object':
      return '{"outbounds":'.repeat(1) + '{"a":'.repeat(depth) + '1' + '}'.repeat(depth + 1);
    case 'yaml-flow':
      return `proxies: ${'['.repeat(depth)}${']'.repeat(depth)}`;
    case 'yaml-flow-map':
      return `proxies: [${'{a: '.repeat(depth)}1${'}'.repeat(depth)}]`;
    case 'yaml-block':
      return `proxies:\n${'- '.repeat(depth)}x`;
    case 'yaml-indent':
      return `proxies:\n${Array.from({ length: depth }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} 1`;
  }
}
