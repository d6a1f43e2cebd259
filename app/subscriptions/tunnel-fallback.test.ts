import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import type { FetchOptions, FetchOutcome, SubscriptionFetcher } from './fetch';
import { TunnelFallbackFetcher } from './tunnel-fallback';

const OK: FetchOutcome = { ok: true, body: Buffer.from('vless://x'), status: 200, usage: null, title: null, updateIntervalHours: null, announce: null };

/** Answers by route: `direct` when no proxy is asked for, `tunnel` through one; records what was asked. */
function network(direct: FetchOutcome, tunnel: FetchOutcome = OK) {
  const asked: FetchOptions[] = [];
  const fetcher: SubscriptionFetcher = {
    fetch: async (_url, options = {}) => {
      asked.push(options);
      return options.proxy ? tunnel : direct;
    },
  };
  return { fetcher, asked };
}
const fail = (kind: Extract<FetchOutcome, { ok: false }>['kind'], message = `${kind} happened`): FetchOutcome => ({ ok: false, kind, message });
const PROXY = 'http://127.0.0.1:10809';

describe('subscription fetches through the tunnel', () => {
  it.each(['reset', 'refused', 'timeout', 'dns', 'tls', 'network'] as const)('a direct %s is tried again through the connected tunnel', async (kind) => {
    const { fetcher, asked } = network(fail(kind));
    const outcome = await new TunnelFallbackFetcher(fetcher, () => PROXY, memoryLogger().logger).fetch('https://p.example.com/s', { userAgent: 'UA' });
    expect(outcome).toMatchObject({ ok: true, viaTunnel: true });
    expect(asked).toEqual([{ userAgent: 'UA' }, { userAgent: 'UA', proxy: PROXY }]);
  });

  it("the provider's own answers are final: an HTTP error or a list too large is not asked again", async () => {
    for (const kind of ['http-status', 'too-large', 'redirects', 'invalid-url'] as const) {
      const { fetcher, asked } = network(fail(kind));
      expect(await new TunnelFallbackFetcher(fetcher, () => PROXY, memoryLogger().logger).fetch('https://p.example.com/s')).toMatchObject({ ok: false, kind });
      expect(asked).toHaveLength(1);
    }
  });

  it('without a connection it fails as the direct fetch did; through the tunnel too, it says both', async () => {
    const alone = network(fail('reset'));
    expect(await new TunnelFallbackFetcher(alone.fetcher, () => null, memoryLogger().logger).fetch('https://p.example.com/s')).toEqual(fail('reset'));
    expect(alone.asked).toHaveLength(1);
    const both = network(fail('reset', 'p.example.com reset the connection'), fail('timeout', 'p.example.com did not answer'));
    expect(await new TunnelFallbackFetcher(both.fetcher, () => PROXY, memoryLogger().logger).fetch('https://p.example.com/s')).toMatchObject({
      ok: false,
      kind: 'reset',
      message: 'p.example.com reset the connection; through the tunnel too: p.example.com did not answer',
    });
  });

  it('a direct success is used as it is: the tunnel is not touched', async () => {
    const { fetcher, asked } = network(OK, fail('reset'));
    expect(await new TunnelFallbackFetcher(fetcher, () => PROXY, memoryLogger().logger).fetch('https://p.example.com/s')).toEqual(OK);
    expect(asked).toHaveLength(1);
  });
});
