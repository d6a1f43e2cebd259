import { describe, expect, it } from 'vitest';
import type { ConnectionState, ConnectionStateName } from '../../../shared/domain/connection';
import { desiredSystemProxy, sameTarget } from './desired';

const connection = (state: ConnectionStateName, http: string | null = 'http://127.0.0.1:10809'): ConnectionState => ({
  state,
  serverId: 's1',
  httpProxy: http,
  socksProxy: 'socks5://127.0.0.1:10808',
  since: 0,
  error: null,
  core: null,
});

describe('when the OS proxy points at the app', () => {
  it.each([
    [true, 'connected', { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 }],
    [true, 'connecting', 'keep'],
    [true, 'reconnecting', 'keep'],
    [true, 'disconnected', null],
    [true, 'failed', null],
    [false, 'connected', null],
    [false, 'reconnecting', null],
  ] as const)('setting %s, %s → %j', (on, state, expected) => {
    expect(desiredSystemProxy(on, connection(state))).toEqual(expected);
  });

  it('connected without a local HTTP inbound: the user’s settings', () => {
    expect(desiredSystemProxy(true, connection('connected', null))).toBeNull();
  });

  it('compares targets by value', () => {
    const t = { host: '127.0.0.1', httpPort: 1, socksPort: null };
    expect(sameTarget(t, { ...t })).toBe(true);
    expect(sameTarget(t, { ...t, socksPort: 2 })).toBe(false);
    expect(sameTarget(null, null)).toBe(true);
    expect(sameTarget(t, null)).toBe(false);
  });
});
