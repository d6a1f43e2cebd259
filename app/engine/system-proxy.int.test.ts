/**
 * System-proxy mode through the whole engine: a crashed run's proxy put back at start, the OS
 * proxy pointed at the app's real tunnel while connected, and the user's own settings back when
 * the engine stops. The OS settings are a stand-in for the Windows registry (reg.exe cannot run
 * here); the tunnel is a real core through the lab.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, labRouting, startLab } from '../../e2e/lab';
import { memoryLogger } from '../log/logger';
import type { ProxyBackend } from '../system-proxy/backend';
import { SYSTEM_PROXY_STATE_FILE } from '../system-proxy/mode';
import { SystemProxy } from '../system-proxy/system-proxy';
import { FakeRegistry } from '../system-proxy/testing/fake-registry';
import { windowsBackend } from '../system-proxy/windows';
import { freePorts } from '../tunnel/ports';
import { createEngine, type Engine } from './engine';

const USER_PROXY = { ProxyEnable: 0, ProxyServer: 'corp:3128' };

let lab: InProcessLab;
let engine: Engine | null = null;
const registry = new FakeRegistry(USER_PROXY);
const backends = async () => [windowsBackend() as ProxyBackend<unknown>];
const dataDir = mkdtempSync(join(tmpdir(), 'engine-sysproxy-'));
const log = memoryLogger('info');
const registryValues = () => Object.fromEntries([...registry.values].map(([name, value]) => [name, value.data]));

beforeAll(async () => {
  lab = await startLab({ servers: 2, subscriptions: 1, seed: 5, latency: [20, 40] });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await lab?.stop();
});

describe('system-proxy mode in the engine', () => {
  it('puts back a crashed run’s proxy at start, points the OS at the tunnel while connected, and restores it on stop', async () => {
    // The last run pointed the OS proxy at the app and was killed.
    await new SystemProxy({ backends: await backends(), run: registry.run, statePath: join(dataDir, SYSTEM_PROXY_STATE_FILE), logger: log.logger }).apply({
      host: '127.0.0.1',
      httpPort: 10809,
      socksPort: null,
    });
    expect(registry.get('ProxyServer')).toBe('127.0.0.1:10809');

    const [httpPort, socksPort] = await freePorts(2);
    engine = await createEngine({
      dataDir,
      logger: log.logger,
      watchNetwork: false,
      defaultMode: 'system-proxy',
      systemProxy: { run: registry.run, detectBackends: backends },
      settingsOverrides: { httpPort, socksPort, monitor: { urls: [lab.info.target], ipInfoUrls: lab.info.ipinfoUrls }, ...labRouting(lab.info) },
    });
    expect(registryValues()).toEqual(USER_PROXY);
    expect(existsSync(join(dataDir, SYSTEM_PROXY_STATE_FILE))).toBe(false);

    const subscription = await engine.addSubscription({ url: lab.info.subscriptions[0]!.url });
    await engine.connect({ serverId: subscription.servers[0]!.id });
    await expect.poll(() => registry.get('ProxyServer'), { timeout: 10_000 }).toBe(`127.0.0.1:${httpPort}`);
    expect(registry.get('ProxyEnable')).toBe(1);

    await engine.stop();
    engine = null;
    expect(registryValues()).toEqual(USER_PROXY);
    expect(existsSync(join(dataDir, SYSTEM_PROXY_STATE_FILE))).toBe(false);
  }, 60_000);
});
