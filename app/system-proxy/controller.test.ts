import { describe, expect, it } from 'vitest';
import type { ConnectionState, ConnectionStateName } from '../../shared/domain/connection';
import type { EventName, EventPayloads } from '../../shared/ipc/contract';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { memoryLogger } from '../log/logger';
import { SystemProxyController } from './controller';
import type { ProxyTarget } from './target';

const conn = (state: ConnectionStateName, port = 10809): ConnectionState => ({
  state,
  serverId: 's1',
  httpProxy: `http://127.0.0.1:${port}`,
  socksProxy: null,
  since: 0,
  error: null,
  core: null,
});

function setup(options: { failApply?: boolean } = {}) {
  const calls: (ProxyTarget | 'restore')[] = [];
  const proxy = {
    apply: async (t: ProxyTarget) => {
      calls.push(t);
      if (options.failApply) throw new Error('gsettings: not found');
      return { applied: [], failed: [] };
    },
    restore: async () => {
      calls.push('restore');
      return null;
    },
  };
  const { logger, lines } = memoryLogger();
  const listeners = new Map<string, (p: unknown) => void>();
  const engine = {
    on<E extends EventName>(event: E, listener: (p: EventPayloads[E]) => void) {
      listeners.set(event, listener as (p: unknown) => void);
      return () => listeners.delete(event);
    },
  };
  const controller = new SystemProxyController(proxy, logger);
  const off = controller.bind(engine);
  const emit = async <E extends EventName>(event: E, payload: EventPayloads[E]) => {
    listeners.get(event)?.(payload);
    await controller.settled();
  };
  return { calls, lines, emit, off, listeners };
}

describe('SystemProxyController follows the setting and the connection', () => {
  it('sets the proxy once connected with the setting on, keeps it through an Auto switch, restores on disconnect', async () => {
    const s = setup();
    await s.emit('settings', { ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    await s.emit('connection', conn('connecting'));
    await s.emit('connection', conn('connected'));
    await s.emit('connection', conn('reconnecting'));
    await s.emit('connection', conn('connected'));
    await s.emit('connection', conn('disconnected'));
    expect(s.calls).toEqual([{ host: '127.0.0.1', httpPort: 10809, socksPort: null }, 'restore']);
  });

  it('turning the setting off while connected restores; on again re-applies', async () => {
    const s = setup();
    await s.emit('connection', conn('connected'));
    expect(s.calls).toEqual([]);
    await s.emit('settings', { ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    await s.emit('settings', { ...DEFAULT_SETTINGS, mode: 'proxy' });
    await s.emit('settings', { ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    expect(s.calls).toEqual([expect.objectContaining({ httpPort: 10809 }), 'restore', expect.objectContaining({ httpPort: 10809 })]);
  });

  it('a new HTTP port while connected re-points the proxy', async () => {
    const s = setup();
    await s.emit('settings', { ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    await s.emit('connection', conn('connected'));
    await s.emit('connection', conn('connected', 20000));
    expect(s.calls.map((c) => (c === 'restore' ? c : c.httpPort))).toEqual([10809, 20000]);
  });

  it('a snapshot sets both at once', async () => {
    const s = setup();
    // Only these two fields of the snapshot matter here.
    await s.emit('snapshot', { settings: { ...DEFAULT_SETTINGS, mode: 'system-proxy' }, connection: conn('connected') } as EventPayloads['snapshot']);
    expect(s.calls).toHaveLength(1);
  });

  it('a failure is logged and does not stop later changes', async () => {
    const s = setup({ failApply: true });
    await s.emit('settings', { ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    await s.emit('connection', conn('connected'));
    await s.emit('connection', conn('disconnected'));
    expect(s.calls).toEqual([expect.anything(), 'restore']);
    expect(s.lines.some((l) => /system proxy change failed: gsettings: not found/.test(l))).toBe(true);
  });

  it('unsubscribes from the engine', () => {
    const s = setup();
    s.off();
    expect(s.listeners.size).toBe(0);
  });
});
