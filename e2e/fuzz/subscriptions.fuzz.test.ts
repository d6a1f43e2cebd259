import { describe, it } from 'vitest';
import { parseSubscription } from '../../app/subscriptions/parse';
import { assertTarget } from './assert-target';
import { checkParseResult } from './checks/subscription';
import { deepNesting, yamlAliasBomb } from './generators';
import { runInput, targetNamed } from './properties';

// Property: whatever the body, parseSubscription returns its documented result (never throws,
// never reports a caught exception as a reason), every server it keeps has a protocol, a
// non-empty address and a port 1–65535, every rejection a line ≥ 1, a reason and a masked
// excerpt, and one body takes at most 50 ms. A valid share link parses to exactly its server.
describe('subscription parser under fuzzing', () => {
  it('share links of every scheme, valid or mutated', () =>
    assertTarget('share-links', 600, [
      // Once quoted its UUID in the reason: a mutation had copied it into the bracketed host.
      {
        body: 'vmess://00000000-0000-1000-8000-000000000000@[000:00000000-0000-1000-8000-000000000000[000:0:000:000:000:00:0000:1]:1?type=grpc&security=tls&sni=a.aaaaaaa.aaa&alpn=http%2F1.1%2Ch3&host=aaaaaaaaaa.aa&encryption=auto#%F0%9F%87%AE%F0%9F%87%B7',
        expected: null,
      },
    ]), 30_000);

  it('bodies in every format (links, base64, Xray / sing-box JSON, Clash YAML), valid or broken', () =>
    assertTarget('subscription-bodies', 250, [
      deepNesting('json-array', 20_000),
      deepNesting('json-object', 10_000),
      deepNesting('yaml-flow', 3000),
      deepNesting('yaml-block', 3000),
      yamlAliasBomb(12, 12, 'proxies'),
    ]), 30_000);

  it('arbitrary strings and bytes', () => assertTarget('subscription-noise', 400), 30_000);

  it('survives deeply nested YAML twice in a row (once a fatal out-of-memory in the regexp compiler)', async () => {
    const session = await targetNamed('subscription-bodies').open();
    for (const body of [deepNesting('yaml-flow', 1000), deepNesting('yaml-flow', 10_000), deepNesting('yaml-flow-map', 10_000)]) {
      await runInput(session as never, body as never);
      checkParseResult(parseSubscription(body));
    }
  }, 30_000);
});
