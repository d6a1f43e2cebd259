import { describe, expect, it } from 'vitest';
import type { Server } from '../../../shared/domain/server';
import { chainedExchangeBytes, connectionBytes, exchangeBytes, getRequestBytes, PROBE_HEADERS, RESPONSE_HEADER_BYTES } from './traffic-cost';

const server = (network: Server['transport']['network'], security: Server['security']['type']) =>
  ({ transport: { network }, security: { type: security } }) as Pick<Server, 'transport' | 'security'>;

describe('what a test costs in bytes', () => {
  it('counts the request line and every header the prober sends', () => {
    const text = 'GET /generate_204?x=1 HTTP/1.1\r\nhost: 127.0.0.1:8080\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n';
    expect(getRequestBytes('http://127.0.0.1:8080/generate_204?x=1', PROBE_HEADERS)).toBe(Buffer.byteLength(text));
  });

  it.each([
    ['tcp', 'none', 'http://127.0.0.1/', 64, 32],
    ['tcp', 'tls', 'http://127.0.0.1/', 664, 4032],
    ['tcp', 'reality', 'http://127.0.0.1/', 664, 1532],
    ['ws', 'tls', 'http://127.0.0.1/', 914, 4162],
    ['grpc', 'none', 'http://127.0.0.1/', 364, 232],
    ['xhttp', 'none', 'http://127.0.0.1/', 464, 232],
    ['tcp', 'none', 'https://127.0.0.1/', 664, 4032],
  ] as const)('a connection over %s with %s to %s: %d B up, %d B down', (network, security, url, up, down) => {
    expect(connectionBytes(server(network, security), url)).toEqual({ up, down });
  });

  it('a delay probe sends its request twice and reads two responses', () => {
    const url = 'http://127.0.0.1:8080/generate_204';
    const one = getRequestBytes(url, PROBE_HEADERS);
    const bytes = exchangeBytes(server('tcp', 'none'), { url, requests: 2, headers: PROBE_HEADERS, answered: true, bodyBytes: 0 });
    expect(bytes.up).toBe(64 + 2 * one + 18);
    expect(bytes.down).toBe(32 + 2 * RESPONSE_HEADER_BYTES + 18);
  });

  it('a transfer counts its body with the framing around it', () => {
    const url = 'http://127.0.0.1:8080/bytes/65536';
    const bytes = exchangeBytes(server('tcp', 'none'), { url, requests: 1, headers: PROBE_HEADERS, answered: true, bodyBytes: 65536 });
    const received = 65536 + RESPONSE_HEADER_BYTES;
    expect(bytes.down).toBe(32 + received + Math.ceil(received / 16384) * 18);
  });

  it('a reachability test through another server pays both servers’ handshakes', () => {
    const url = 'http://127.0.0.1/generate_204';
    const chained = chainedExchangeBytes(server('ws', 'tls'), server('tcp', 'reality'), url, true);
    const alone = exchangeBytes(server('tcp', 'reality'), { url, requests: 1, headers: PROBE_HEADERS, answered: true, bodyBytes: 0 });
    expect(chained).toEqual({ up: alone.up + 914, down: alone.down + 4162 });
    expect(chainedExchangeBytes(server('ws', 'tls'), server('tcp', 'none'), url, false).down).toBe(0);
  });

  it('an unanswered test costs only what was sent', () => {
    const bytes = exchangeBytes(server('ws', 'tls'), { url: 'http://127.0.0.1/', requests: 2, headers: PROBE_HEADERS, answered: false, bodyBytes: 0 });
    expect(bytes.down).toBe(0);
    expect(bytes.up).toBeGreaterThan(914);
  });
});
