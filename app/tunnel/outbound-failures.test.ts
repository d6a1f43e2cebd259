import { describe, expect, it } from 'vitest';
import { type AttributedFailure, type DialRetry, OutboundFailureTracker } from './outbound-failures';

// A refused dial as Debian's v2ray 4.34 logs it at info level (real lines, one session).
const REFUSED_SESSION = [
  '2026/11/30 13:36:04 [Info] [3129139338] v2ray.com/core/proxy/http: request to Method [CONNECT] Host [127.0.0.1:9] with URL [//127.0.0.1:9]',
  '2026/11/30 13:36:04 [Info] [3129139338] v2ray.com/core/app/dispatcher: taking detour [out-ref] for [tcp:127.0.0.1:9]',
  '2026/11/30 13:36:04 [Info] [3129139338] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
  '2026/11/30 13:36:04 127.0.0.1:34426 accepted //127.0.0.1:9 [out-ref]',
  '2026/11/30 13:36:04 [Info] [3129139338] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
  '2026/11/30 13:36:05 [Info] [3129139338] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
  '2026/11/30 13:36:05 [Info] [3129139338] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
  '2026/11/30 13:36:06 [Info] [3129139338] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.0.1:19003',
  '2026/11/30 13:36:06 [Warning] [3129139338] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [dial tcp 127.0.0.1:19003: connect: connection refused] > v2ray.com/core/common/retry: all retry attempts failed',
  '2026/11/30 13:36:06 [Info] [3129139338] v2ray.com/core/app/proxyman/inbound: connection ends > v2ray.com/core/proxy/http: connection ends > io: read/write on closed pipe',
];

function track(lines: string[], defaultTag: string | null = null) {
  const failures: AttributedFailure[] = [];
  const retries: DialRetry[] = [];
  const tracker = new OutboundFailureTracker({ failure: (f) => failures.push(f), retry: (r) => retries.push(r) }, defaultTag);
  for (const line of lines) tracker.line(line);
  return { failures, retries };
}

describe('OutboundFailureTracker', () => {
  it('attributes a failure to the outbound its session was routed to', () => {
    const { failures } = track(REFUSED_SESSION);
    expect(failures).toEqual([
      expect.objectContaining({ outboundTag: 'out-ref', sessionId: '3129139338', kind: 'refused', address: '127.0.0.1:19003' }),
    ]);
  });

  it('names where the failed session was going, so a destination that failed through a working server can be told apart', () => {
    expect(track(REFUSED_SESSION).failures[0]?.destination).toBe('127.0.0.1:9');
    // A working VLESS server that could not reach the destination closes the stream before its answer (Xray's lines).
    const { failures } = track([
      '2026/12/02 02:05:48.008246 [Info] [537156519] proxy/http: request to Method [CONNECT] Host [127.0.0.1:1] with URL [//127.0.0.1:1]',
      '2026/12/02 02:05:48.008260 [Info] [537156519] app/dispatcher: default route for tcp:127.0.0.1:1',
      '2026/12/02 02:05:48.008267 [Info] [537156519] transport/internet/tcp: dialing TCP to tcp:127.0.2.1:33423',
      '2026/12/02 02:05:48.101000 [Info] [537156519] app/proxyman/outbound: failed to process outbound traffic > proxy/vless/outbound: connection ends > proxy/vless/encoding: failed to read response version > EOF',
    ], 'proxy');
    expect(failures).toEqual([expect.objectContaining({ outboundTag: 'proxy', kind: 'handshake', destination: '127.0.0.1:1' })]);
  });

  it('reports each retry of a dial: the second dial is the first sign it failed', () => {
    const { retries } = track(REFUSED_SESSION);
    expect(retries.map((r) => r.attempt)).toEqual([2, 3, 4, 5]);
    expect(retries[0]).toMatchObject({ outboundTag: 'out-ref', address: '127.0.0.1:19003' });
  });

  it('sends default-route sessions to the default outbound', () => {
    const lines = [
      '2026/11/30 14:00:00 [Info] [42] v2ray.com/core/app/dispatcher: default route for [tcp:127.0.0.1:9]',
      '2026/11/30 14:00:00 [Info] [42] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: connection ends > v2ray.com/core/proxy/vmess/outbound: failed to read header > v2ray.com/core/proxy/vmess/encoding: Unable to Read Header Len > read tcp 127.0.0.1:58006->127.0.0.1:19001: read: connection reset by peer',
    ];
    expect(track(lines, 'proxy').failures).toEqual([expect.objectContaining({ outboundTag: 'proxy', kind: 'reset' })]);
  });

  it('keeps a failure whose route it never saw, without an outbound', () => {
    expect(track(REFUSED_SESSION.slice(-2)).failures).toEqual([expect.objectContaining({ outboundTag: null, kind: 'refused' })]);
  });

  it('does not count closes the client caused', () => {
    const lines = [
      '2026/11/30 13:35:50 [Info] [7] v2ray.com/core/app/dispatcher: taking detour [out-bh] for [tcp:127.0.0.1:9]',
      '2026/11/30 13:35:55 [Info] [7] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: connection ends > context canceled',
    ];
    expect(track(lines).failures).toEqual([]);
  });
});
