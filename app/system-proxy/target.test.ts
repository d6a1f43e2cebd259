import { describe, expect, it } from 'vitest';
import { proxyTargetFromConnection } from './target';

describe('proxyTargetFromConnection', () => {
  it('takes host and ports from the connection’s local inbounds', () => {
    expect(proxyTargetFromConnection({ httpProxy: 'http://127.0.0.1:10809', socksProxy: 'socks5://127.0.0.1:10808' })).toEqual({
      host: '127.0.0.1',
      httpPort: 10809,
      socksPort: 10808,
    });
  });

  it('unbrackets IPv6 hosts', () => {
    expect(proxyTargetFromConnection({ httpProxy: 'http://[::1]:8080', socksProxy: null })).toEqual({ host: '::1', httpPort: 8080, socksPort: null });
  });

  it('announces SOCKS only when it listens on the same host as HTTP', () => {
    expect(proxyTargetFromConnection({ httpProxy: 'http://127.0.0.1:1', socksProxy: 'socks5://0.0.0.0:2' })?.socksPort).toBeNull();
  });

  it.each([null, '', 'not a url', 'http://127.0.0.1', 'http://127.0.0.1:0'])('no target for %j', (http) => {
    expect(proxyTargetFromConnection({ httpProxy: http, socksProxy: null })).toBeNull();
  });
});
