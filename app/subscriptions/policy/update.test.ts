import { describe, expect, it } from 'vitest';
import { sampleServer } from '../../../shared/domain/sample-servers';
import { sampleSubscription } from '../../../shared/testing/sample-subscriptions';
import type { Subscription } from '../../../shared/domain/subscription';
import type { FetchOutcome } from '../fetch';
import { updateFromFetch } from './update';

const NOW = 5_000;
const TROJAN = (host: string) => `trojan://secret-${host}@${host}:443?security=tls&sni=${host}#${host}`;
const body = (text: string): FetchOutcome => ({ ok: true, body: Buffer.from(text), status: 200, usage: null, title: null, updateIntervalHours: 6, announce: 'hello' });
const failure: FetchOutcome = { ok: false, kind: 'timeout', message: 'the provider did not answer in 20 s' };

function subscription(servers: number): Subscription {
  const list = Array.from({ length: servers }, (_, i) => sampleServer('trojan', 'tcp', { id: `old-${i}`, subscriptionId: 'u-1', name: `old ${i}` }));
  return sampleSubscription('u-1', list, { name: 'Provider', url: 'https://provider.example/sub', updatedAt: 1_000 });
}

describe('what an update does to a subscription', () => {
  it.each([
    ['a failed fetch keeps the servers and says so', subscription(2), failure, 'failed', 2, 'Could not update: the provider did not answer in 20 s. The previous 2 servers are kept.', 'timeout'],
    ['an empty response keeps the one server', subscription(1), body(''), 'failed', 1, 'Could not update: the provider sent an empty response. The previous 1 server is kept.', 'empty-response'],
    ['a body of only unusable entries keeps the servers', subscription(2), body('vless://not-a-server\nnope://x'), 'failed', 2, "Could not update: no usable server in the provider's response", 'no-usable-server'],
    ['a provider listing no servers waits for the user', subscription(2), body('# nothing today'), 'pending-empty', 2, 'The provider now lists no servers. The previous 2 servers are kept until you confirm the empty list.', null],
    ['a new list replaces the old', subscription(2), body([TROJAN('a.example'), TROJAN('b.example'), TROJAN('c.example')].join('\n')), 'updated', 3, null, null],
  ] as const)('%s', (_name, before, outcome, kind, servers, error, errorKind) => {
    const result = updateFromFetch(before, outcome, false, NOW);
    expect(result.kind).toBe(kind);
    expect(result.next.servers).toHaveLength(servers);
    if (error === null) expect(result.next.lastError).toBeNull();
    else expect(result.next.lastError).toContain(error);
    expect(result.next.lastErrorKind).toBe(errorKind);
    expect(result.next.lastAttemptAt).toBe(NOW);
    expect(result.next.updatedAt).toBe(kind === 'updated' ? NOW : 1_000);
    expect(result.next.pendingEmpty).toBe(kind === 'pending-empty');
  });

  it("takes the provider's interval and announcement from any answer, and keeps the last ones when the fetch fails", () => {
    const answered = updateFromFetch(subscription(1), body('# nothing today'), false, NOW).next;
    expect(answered).toMatchObject({ updateIntervalHours: 6, announce: 'hello' });
    expect(updateFromFetch(answered, failure, false, NOW + 1).next).toMatchObject({ updateIntervalHours: 6, announce: 'hello' });
  });

  it("names the subscription by the provider's title only on the first fetch of one added without a name", () => {
    const titled: FetchOutcome = { ...body(TROJAN('a.example')), title: 'My VPN' } as FetchOutcome;
    expect(updateFromFetch(subscription(0), titled, true, NOW).next.name).toBe('My VPN');
    expect(updateFromFetch(subscription(0), titled, false, NOW).next.name).toBe('Provider');
  });

  it('keeps a server its id when the provider lists it again', () => {
    const first = updateFromFetch(subscription(0), body([TROJAN('a.example'), TROJAN('b.example')].join('\n')), false, NOW).next;
    const again = updateFromFetch(first, body([TROJAN('b.example'), TROJAN('a.example')].join('\n')), false, NOW + 1).next;
    expect(Object.fromEntries(again.servers.map((s) => [s.name, s.id]))).toEqual(Object.fromEntries(first.servers.map((s) => [s.name, s.id])));
  });

  it('words the log line of an update: the format and what it holds', () => {
    const result = updateFromFetch(subscription(0), body(TROJAN('a.example')), false, NOW);
    expect(result.kind === 'updated' && result.logLine).toBe('"Provider" updated (links): 1 server');
  });
});
