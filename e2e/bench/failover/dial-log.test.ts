import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../app/log/logger';
import { DialLog, dialOf } from './dial-log';

// Lines Debian's v2ray 4.34 wrote in the lab (tunnel core at info level).
const TCP_DIAL = '2026/11/30 15:05:25 [Info] [2224983597] v2ray.com/core/transport/internet/tcp: dialing TCP to tcp:127.0.2.1:45997';
const WS_DIAL = '2026/11/30 15:05:24 [Info] [3674192718] v2ray.com/core/transport/internet/websocket: creating connection to tcp:127.0.2.5:39223';
const WS_RESET =
  '2026/11/30 15:05:26 [Warning] [3674192718] v2ray.com/core/app/proxyman/outbound: failed to process outbound traffic > v2ray.com/core/proxy/vmess/outbound: failed to find an available destination > v2ray.com/core/common/retry: [v2ray.com/core/transport/internet/websocket: failed to dial WebSocket > v2ray.com/core/transport/internet/websocket: failed to dial to (ws://127.0.2.5:39223/ws/b1):  > read tcp 127.0.0.1:48056->127.0.2.5:39223: read: connection reset by peer] > v2ray.com/core/common/retry: all retry attempts failed';
const ROUTE = '2026/11/30 15:05:24 [Info] [3674192718] v2ray.com/core/app/dispatcher: default route for tcp:127.0.0.1:45787';

const record = (tag: string, line: string, at: number, level: LogRecord['level'] = 'debug'): LogRecord => ({ at, level, tag, message: `core: ${line}` });

describe('dialOf', () => {
  it('reads a TCP dial and a WebSocket dial with their session', () => {
    expect(dialOf(TCP_DIAL)).toEqual({ session: '2224983597', address: '127.0.2.1:45997' });
    expect(dialOf(WS_DIAL)).toEqual({ session: '3674192718', address: '127.0.2.5:39223' });
  });

  it('ignores lines that are not dials', () => {
    expect(dialOf(ROUTE)).toBeNull();
    expect(dialOf(WS_RESET)).toBeNull();
  });
});

describe('DialLog', () => {
  it('tells the tunnel core from the prober cores and ignores other lines', () => {
    const log = new DialLog();
    log.sink(record('TUNNEL', TCP_DIAL, 10));
    log.sink(record('PROBER', WS_DIAL, 20));
    log.sink(record('MONITORING', TCP_DIAL, 30));
    log.sink({ at: 40, level: 'info', tag: 'TUNNEL', message: 'switched to A1' });
    expect(log.dials.map((d) => d.core)).toEqual(['tunnel', 'prober']);
    expect(log.between(15, 25)).toHaveLength(1);
  });

  it('folds a session’s retries and its failure into one account', () => {
    const log = new DialLog();
    for (const at of [100, 100, 300, 700, 1300]) log.sink(record('TUNNEL', WS_DIAL, at));
    log.sink(record('TUNNEL', WS_RESET, 2100));
    expect(log.sessions('tunnel', '127.0.2.5:39223', 50)).toEqual([
      { session: '3674192718', address: '127.0.2.5:39223', firstDialAt: 100, attempts: 5, retryAt: 100, failedAt: 2100, kind: 'reset' },
    ]);
    // A session that began before `since` is not a new dial.
    expect(log.sessions('tunnel', '127.0.2.5:39223', 200)).toEqual([]);
    expect(log.sessions('prober', '127.0.2.5:39223', 0)).toEqual([]);
  });
});
