import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../shared/domain/connection';
import type { EventPayloads } from '../../shared/ipc/contract';
import { type ConnectionMode, DEFAULT_SETTINGS } from '../../shared/settings';
import { Emitter } from '../events';
import { memoryLogger } from '../log/logger';
import type { ProxyBackend } from './backend';
import { SYSTEM_PROXY_STATE_FILE, SystemProxyMode } from './mode';
import { SystemProxy } from './system-proxy';
import { FakeRegistry } from './testing/fake-registry';
import { windowsBackend } from './windows';

const USER_PROXY = { ProxyEnable: 0, ProxyServer: 'corp:3128' };
const APP_PROXY = '127.0.0.1:10809';

const connection = (state: ConnectionState['state']): ConnectionState => ({
  state,
  serverId: state === 'disconnected' ? null : 's1',
  httpProxy: state === 'disconnected' ? null : `http://${APP_PROXY}`,
  socksProxy: null,
  since: 0,
  error: null,
  core: null,
});
const settings = (mode: ConnectionMode) => ({ ...DEFAULT_SETTINGS, mode });

function world() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sysproxy-mode-'));
  const registry = new FakeRegistry(USER_PROXY);
  const { logger, lines } = memoryLogger();
  const host = { run: registry.run, detectBackends: async () => [windowsBackend() as ProxyBackend<unknown>] };
  const events = new Emitter<EventPayloads>();
  const values = () => Object.fromEntries([...registry.values].map(([name, value]) => [name, value.data]));
  return { dataDir, registry, logger, lines, host, events, values };
}

describe('system-proxy mode as the engine runs it', () => {
  it('puts back what a crashed run left pointed at the app, before it follows anything', async () => {
    const w = world();
    // The last run pointed the OS at the app and died.
    await new SystemProxy({ backends: [windowsBackend() as ProxyBackend<unknown>], run: w.registry.run, statePath: join(w.dataDir, SYSTEM_PROXY_STATE_FILE), logger: w.logger }).apply({
      host: '127.0.0.1',
      httpPort: 10809,
      socksPort: null,
    });
    expect(w.registry.get('ProxyServer')).toBe(APP_PROXY);

    await SystemProxyMode.start(w.host, { dataDir: w.dataDir, logger: w.logger });
    expect(w.values()).toEqual(USER_PROXY);
    expect(existsSync(join(w.dataDir, SYSTEM_PROXY_STATE_FILE))).toBe(false);
    expect(w.lines.join('\n')).toMatch(/the last run did not restore the system proxy/);
  });

  it('points the OS at the app while connected in system-proxy mode, and back when the mode changes', async () => {
    const w = world();
    const mode = await SystemProxyMode.start(w.host, { dataDir: w.dataDir, logger: w.logger });
    await mode.follow(w.events, { settings: settings('system-proxy'), connection: connection('disconnected') });
    expect(w.values()).toEqual(USER_PROXY);

    w.events.emit('connection', connection('connected'));
    await expect.poll(() => w.registry.get('ProxyServer')).toBe(APP_PROXY);
    w.events.emit('settings', settings('proxy'));
    await expect.poll(() => w.values()).toEqual(USER_PROXY);
  });

  it('an engine already connected when it starts following sets the proxy at once', async () => {
    const w = world();
    const mode = await SystemProxyMode.start(w.host, { dataDir: w.dataDir, logger: w.logger });
    await mode.follow(w.events, { settings: settings('system-proxy'), connection: connection('connected') });
    expect(w.registry.get('ProxyServer')).toBe(APP_PROXY);
    expect(w.registry.get('ProxyEnable')).toBe(1);
  });

  it('end() puts the user’s settings back and stops following: a later event changes nothing', async () => {
    const w = world();
    const mode = await SystemProxyMode.start(w.host, { dataDir: w.dataDir, logger: w.logger });
    await mode.follow(w.events, { settings: settings('system-proxy'), connection: connection('connected') });
    await mode.end();
    expect(w.values()).toEqual(USER_PROXY);
    expect(existsSync(join(w.dataDir, SYSTEM_PROXY_STATE_FILE))).toBe(false);

    const commands = w.registry.commands.length;
    w.events.emit('connection', connection('connected'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(w.registry.commands.length).toBe(commands);
  });

  it('a system whose proxy settings cannot be found still starts; the mode then changes nothing and says why', async () => {
    const w = world();
    const mode = await SystemProxyMode.start({ run: w.registry.run, detectBackends: async () => Promise.reject(new Error('gsettings crashed')) }, { dataDir: w.dataDir, logger: w.logger });
    await mode.follow(w.events, { settings: settings('system-proxy'), connection: connection('connected') });
    await mode.end();
    expect(w.values()).toEqual(USER_PROXY);
    expect(w.lines.join('\n')).toMatch(/could not find the system proxy settings.*gsettings crashed/);
  });

  it('in another mode it never touches the OS settings', async () => {
    const w = world();
    const mode = await SystemProxyMode.start(w.host, { dataDir: w.dataDir, logger: w.logger });
    await mode.follow(w.events, { settings: settings('proxy'), connection: connection('connected') });
    w.events.emit('connection', connection('reconnecting'));
    w.events.emit('connection', connection('connected'));
    await mode.end();
    expect(w.registry.commands).toEqual([]);
  });
});
