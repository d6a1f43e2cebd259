import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseSubscription } from '../../app/subscriptions/parse';
import { checkParseResult } from './checks/subscription';
import { applyMutation, clashProxy, LINK_SCHEMES, serverSpecArb, singBoxConfig, textBody, validLinkArb, xrayConfig } from './generators';
import { xrayProtocolOf } from './gen/configs';
import { protocolOf } from './gen/servers';

// The fuzzing is only as good as its generators: these tests check that they reach every
// format and scheme, and that their valid inputs are valid (the parser keeps every server).
describe('fuzz generators', () => {
  it('reach every subscription format', () => {
    const formats = new Set(fc.sample(textBody, { numRuns: 250, seed: 7 }).map((body) => parseSubscription(body).format));
    for (const format of ['links', 'base64', 'xray-json', 'sing-box-json', 'clash-yaml', 'unknown']) expect(formats).toContain(format);
  }, 20_000);

  it('write valid share links of every scheme', () => {
    const schemes = new Set(fc.sample(validLinkArb, { numRuns: 300, seed: 7 }).map((l) => l.spec.scheme));
    expect([...schemes].sort()).toEqual([...LINK_SCHEMES].sort());
  });

  const servers = fc.array(serverSpecArb, { minLength: 1, maxLength: 6 }).map((specs) => specs.map((s, i) => ({ ...s, tag: `t${i}`, name: `n${i}` })));
  const endpoints = (r: ReturnType<typeof parseSubscription>) => r.servers.map((s) => `${s.protocol} ${s.address}:${s.port}`);

  it('write Xray, sing-box and Clash documents whose every server is kept', () => {
    fc.assert(
      fc.property(servers, (specs) => {
        const xray = parseSubscription(JSON.stringify(xrayConfig(specs, 'r')));
        checkParseResult(xray);
        expect(endpoints(xray)).toEqual(specs.map((s) => `${xrayProtocolOf(s)} ${s.host}:${s.port}`));
        const singBox = parseSubscription(JSON.stringify(singBoxConfig(specs)));
        checkParseResult(singBox);
        expect(endpoints(singBox).sort()).toEqual(specs.map((s) => `${protocolOf(s.scheme)} ${s.host}:${s.port}`).sort());
        const clash = parseSubscription(toYaml({ proxies: specs.map((s) => clashProxy(s)) }));
        checkParseResult(clash);
        expect(endpoints(clash)).toEqual(specs.map((s) => `${protocolOf(s.scheme)} ${s.host}:${s.port}`));
      }),
      { numRuns: 150 },
    );
  }, 20_000);

  it.each([
    [{ op: 'truncate', at: 3, length: 0, text: '' }, 'vmess://abc', 'vme'],
    [{ op: 'insert', at: 5, length: 0, text: '%' }, 'vless://', 'vless%://'],
    [{ op: 'number', at: 0, length: 2, text: '' }, 'h:443#x', 'h:65536#x'],
    [{ op: 'delete', at: 1, length: 2, text: '' }, 'abcdef', 'adef'],
    [{ op: 'duplicate', at: 0, length: 2, text: '' }, 'abc', 'ababc'],
  ] as const)('mutation %o', (mutation, input, output) => {
    expect(applyMutation(input, mutation)).toBe(output);
  });
});
