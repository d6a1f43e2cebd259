import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { clashProxy, singBoxConfig, xrayConfig } from './configs';
import { deepNesting, mutated, type NestingKind, perturbedJson, sometimesMutated } from './mutate';
import { serverSpecArb, shareLink, validLinkArb } from './servers';

/**
 * Subscription bodies in every format users are given, valid and broken: link lists (any line
 * ending, comments, junk), base64 of them (standard / URL-safe, padded or not, wrapped, per
 * line), Xray and sing-box JSON (comments, trailing commas, wrong field types, chains), Clash
 * YAML (anchors, aliases, alias bombs), deep nesting, HTML pages and raw noise.
 */

const junkLine = fc.oneof(
  fc.constantFrom(
    'https://t.me/provider_channel',
    'Welcome! Expires 2026-12-31',
    'ssr://c29tZXRoaW5n',
    'hysteria://h.example.com:443?auth=x',
    'vmess://',
    'vless://@:',
    'ss://YWVzLTEyOC1nY206',
    '<br>',
    'STATUS=🚀↑:0.5GB,↓:12GB,TOT:100GB💡Expires:2026-12-31',
  ),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

const comment = fc.oneof(fc.constant('# comment'), fc.string({ maxLength: 20 }).map((s) => `// ${s}`));
const linkLine = fc.oneof(
  { weight: 5, arbitrary: validLinkArb.map((l) => l.link) },
  { weight: 4, arbitrary: mutated(validLinkArb.map((l) => l.link), 3) },
  { weight: 1, arbitrary: junkLine },
  { weight: 1, arbitrary: comment },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '\t') },
);
const lineEnding = fc.constantFrom('\n', '\r\n', '\r', '\n\n');

export const linkListBody: fc.Arbitrary<string> = fc
  .record({ lines: fc.array(linkLine, { minLength: 1, maxLength: 25 }), eol: lineEnding, bom: fc.boolean(), pad: fc.constantFrom('', ' ', '\n', '\t\n ') })
  .map(({ lines, eol, bom, pad }) => `${bom ? '\ufeff' : ''}${pad}${lines.join(eol)}${pad}`);

type Base64Style = 'std' | 'std-unpadded' | 'url' | 'url-padded' | 'wrapped-76' | 'wrapped-64-crlf' | 'per-line';

export function toBase64(text: string, style: Base64Style): string {
  const std = Buffer.from(text, 'utf8').toString('base64');
  switch (style) {
    case 'std':
      return std;
    case 'std-unpadded':
      return std.replace(/=+$/, '');
    case 'url':
      return Buffer.from(text, 'utf8').toString('base64url');
    case 'url-padded':
      return std.replace(/\+/g, '-').replace(/\//g, '_');
    case 'wrapped-76':
      return std.replace(/.{76}/g, '$&\n');
    case 'wrapped-64-crlf':
      return std.replace(/.{64}/g, '$&\r\n');
    case 'per-line':
      return text
        .split(/\r\n|\r|\n/)
        .filter((l) => l.trim() !== '')
        .map((l) => Buffer.from(l, 'utf8').toString('base64'))
        .join('\n');
  }
}

const base64Style = fc.constantFrom<Base64Style>('std', 'std-unpadded', 'url', 'url-padded', 'wrapped-76', 'wrapped-64-crlf', 'per-line');

/** A tag some entries dial through: another entry's, a direct or group name, a missing one, or themselves. */
function withChains<T>(specs: T[], tagOf: (s: T) => string, extra: string[]): fc.Arbitrary<{ specs: T[]; vias: (string | undefined)[] }> {
  const candidates = [...specs.map(tagOf), ...extra];
  return fc
    .array(fc.option(fc.nat({ max: Math.max(0, candidates.length - 1) }), { freq: 3 }), { minLength: specs.length, maxLength: specs.length })
    .map((picks) => ({ specs, vias: picks.map((p) => (p === null ? undefined : candidates[p])) }));
}

const specs = fc.array(serverSpecArb, { minLength: 1, maxLength: 8 });

export const xrayDocument: fc.Arbitrary<unknown> = fc.oneof(
  specs.chain((ss) => withChains(ss, (s) => s.tag, ['direct', 'block', 'missing'])).map(({ specs: ss, vias }) => xrayConfig(ss, 'Provider 🇩🇪', vias)),
  specs.map((ss) => ss.map((s, i) => xrayConfig([s], `${i + 1}. ${s.name}`))),
);

export const singBoxDocument: fc.Arbitrary<unknown> = specs
  .chain((ss) => withChains(ss, (s) => s.tag, ['direct', 'select', 'missing']))
  .map(({ specs: ss, vias }) => singBoxConfig(ss, vias));

/** JSON text with what Xray accepts and providers ship: comments and trailing commas. */
function jsonText(value: unknown, style: number): string {
  const text = JSON.stringify(value, null, style % 3 === 0 ? 2 : undefined);
  if (style % 4 !== 1) return text;
  return `// exported by a panel\n${text.replace(/\}/g, '},').replace(/,$/, '').replace(/\]/g, ',]')}\n/* end */`;
}

export const jsonBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.oneof(xrayDocument, singBoxDocument), fc.nat(11)).map(([doc, style]) => jsonText(doc, style)) },
  { weight: 3, arbitrary: fc.tuple(perturbedJson(fc.oneof(xrayDocument, singBoxDocument), 4), fc.nat(11)).map(([doc, style]) => jsonText(doc, style)) },
  { weight: 2, arbitrary: mutated(fc.oneof(xrayDocument, singBoxDocument).map((d) => JSON.stringify(d)), 3) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
);

const clashDocument = specs
  .chain((ss) => withChains(ss, (s) => s.name || s.tag, ['DIRECT', 'REJECT', 'Proxy', 'missing']))
  .map(({ specs: ss, vias }) => ({
    'mixed-port': 7890,
    mode: 'rule',
    proxies: ss.map((s, i) => clashProxy(s, vias[i])),
    'proxy-groups': [{ name: 'Proxy', type: 'select', proxies: ss.map((s) => s.name || s.tag) }],
    rules: ['MATCH,Proxy'],
  }));

/** Clash YAML with anchors and aliases, the way hand-written configs share common settings. */
const clashWithAnchors = fc.tuple(serverSpecArb, fc.array(fc.domain(), { minLength: 1, maxLength: 5 })).map(([s, hosts]) =>
  [
    'common: &common',
    '  type: ss',
    '  cipher: aes-128-gcm',
    `  password: ${JSON.stringify(s.password)}`,
    'proxies:',
    ...hosts.map((h, i) => `  - {<<: *common, name: "n${i}", server: ${h}, port: ${(i % 65535) + 1}}`),
    `  - &last {name: last, type: trojan, server: ${s.host.includes(':') ? `"${s.host}"` : s.host}, port: ${s.port}, password: x}`,
    '  - *last',
  ].join('\n'),
);

/** Billion laughs: `levels` of aliases, each `width` times the one before. */
export function yamlAliasBomb(levels: number, width: number, key: string): string {
  const lines = [`l0: &l0 [${Array(width).fill('{type: ss, server: a.b, port: 1, cipher: none, name: lol}').join(', ')}]`];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array(width).fill(`*l${i - 1}`).join(', ')}]`);
  lines.push(`${key}: *l${levels - 1}`);
  return lines.join('\n');
}

export const clashBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: clashDocument.map((d) => toYaml(d)) },
  { weight: 2, arbitrary: perturbedJson(clashDocument, 4).map((d) => toYaml(d)) },
  { weight: 2, arbitrary: mutated(clashDocument.map((d) => toYaml(d)), 3) },
  { weight: 1, arbitrary: sometimesMutated(clashWithAnchors, 2) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 2, max: 12 }), fc.constantFrom('proxies', 'Proxy', 'x')).map(([l, w, k]) => yamlAliasBomb(l, w, k)) },
);

/** Deep nesting in JSON and YAML: stack depth and time, not memory, is what it tests. */
export const deeplyNestedBody: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom<NestingKind>('json-array', 'json-object', 'yaml-flow', 'yaml-flow-map', 'yaml-block', 'yaml-indent'), fc.integer({ min: 1, max: 12_000 }))
  // At most ~64 KB each: deep, not big.
  .map(([kind, depth]) => deepNesting(kind, kind === 'yaml-indent' ? Math.min(depth, 300) : depth));

const htmlPage = fc.string({ maxLength: 80 }).map((s) => `<!DOCTYPE html><html><head><title>Login</title></head><body>${s}</body></html>`);

/** Any text body: each format valid or broken, and base64 of each. */
export const textBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: linkListBody },
  { weight: 4, arbitrary: fc.tuple(linkListBody, base64Style).map(([t, s]) => toBase64(t, s)) },
  { weight: 2, arbitrary: mutated(fc.tuple(linkListBody, base64Style).map(([t, s]) => toBase64(t, s)), 2) },
  { weight: 4, arbitrary: jsonBody },
  { weight: 4, arbitrary: clashBody },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(jsonBody, clashBody), base64Style).map(([t, s]) => toBase64(t, s)) },
  { weight: 1, arbitrary: deeplyNestedBody },
  { weight: 1, arbitrary: htmlPage },
);

/** Raw noise: any string, any bytes (a body served as binary, a truncated gzip, a wrong encoding). */
export const noiseBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.string({ unit: 'grapheme', maxLength: 400 }),
  fc.string({ unit: fc.constantFrom(...'ABCabc019+/=_-\n\r :/@?#%[]{}'.split('')), maxLength: 400 }),
  fc.uint8Array({ maxLength: 400 }),
  fc.tuple(linkListBody, fc.nat()).map(([t, n]) => Buffer.from(t, 'utf8').subarray(0, n % (Buffer.byteLength(t) + 1))),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), linkListBody).map(([junk, t]) => new Uint8Array([...junk, ...Buffer.from(t)])),
);

/** One share link as a one-line body: valid (kept as is), or mutated. */
export const shareLinkBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: validLinkArb.map((l) => l.link) },
  { weight: 3, arbitrary: mutated(validLinkArb.map((l) => l.link), 4) },
  { weight: 1, arbitrary: mutated(serverSpecArb.map(shareLink), 1) },
);
