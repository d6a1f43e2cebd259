import { describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../shared/domain/status';
import { sampleServer } from '../core/samples';
import { Logger } from '../log/logger';
import { followServerIpv6 } from './ipv6-follow';

const quiet = () => new Logger({ level: 'error', sinks: [] });
const status = (serverId: string) => ({ serverId }) as ServerStatus;

function world(o: { current: string | null; outdated: boolean }) {
  let listener: (statuses: ServerStatus[]) => void = () => undefined;
  const restarts: string[] = [];
  let finish: () => void = () => undefined;
  const state = { ...o };
  const off = followServerIpv6({
    subscribe: (l) => ((listener = l), () => (listener = () => undefined)),
    capture: { ipv6Outdated: (server) => server.id === state.current && state.outdated },
    current: () => state.current,
    server: (id) => sampleServer('vmess', 'tcp', { id }),
    reconnect: () => {
      restarts.push(state.current ?? '');
      return new Promise<void>((resolve) => (finish = resolve));
    },
    logger: quiet(),
  });
  return { state, restarts, tell: (...ids: string[]) => listener(ids.map(status)), finish: () => finish(), off };
}

describe('the capture follows the current server’s IPv6 finding', () => {
  it.each([
    ['the current server’s verdict is outdated: restart on it', { current: 'a', outdated: true }, ['a'], ['a']],
    ['its verdict still holds: nothing', { current: 'a', outdated: false }, ['a'], []],
    ['another server’s status changed: nothing', { current: 'a', outdated: true }, ['b'], []],
    ['not connected: nothing', { current: null, outdated: true }, ['a'], []],
  ] as const)('%s', (_, o, told, restarted) => {
    const w = world(o);
    w.tell(...told);
    expect(w.restarts).toEqual(restarted);
  });

  it('restarts once while a restart is under way, and again when a later finding asks', async () => {
    const w = world({ current: 'a', outdated: true });
    w.tell('a');
    w.tell('a');
    expect(w.restarts).toEqual(['a']);
    w.finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    w.tell('a');
    expect(w.restarts).toEqual(['a', 'a']);
    w.off();
    w.tell('a');
    expect(w.restarts).toEqual(['a', 'a']);
  });
});
