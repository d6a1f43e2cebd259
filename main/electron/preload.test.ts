import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { BridgeApi } from '../../shared/ipc/answer';
import { EVENT_NAMES, INVOKE_CHANNELS } from '../../shared/ipc/contract';
import { fake } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectronModule());

// What the page can reach through the preload is the whole attack surface of the app from a web
// page: it must be exactly the contract's operations and event subscription, nothing more.

let api: BridgeApi & Record<string, unknown>;

beforeAll(async () => {
  await import('./preload');
  expect(fake.exposed).toHaveLength(1);
  api = fake.exposed[0]![1] as typeof api;
});

describe('preload: window.vpn', () => {
  it('is exposed once, under "vpn"', () => {
    expect(fake.exposed.map(([name]) => name)).toEqual(['vpn']);
  });

  it('has exactly one function per contract operation, plus on()', () => {
    expect(Object.keys(api).sort()).toEqual([...INVOKE_CHANNELS, 'on'].sort());
    for (const key of Object.keys(api)) expect(typeof api[key], key).toBe('function');
  });

  it('exposes no ipcRenderer, no Node and nothing else, and cannot be extended by the page', () => {
    for (const name of ['ipcRenderer', 'invoke', 'send', 'require', 'process', 'Buffer', 'electron', 'removeAllListeners']) {
      expect(api).not.toHaveProperty(name);
    }
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('each operation invokes its own channel with exactly one argument', async () => {
    for (const channel of INVOKE_CHANNELS) {
      fake.ipcRenderer.invoked.length = 0;
      const answer = await (api[channel] as (...args: unknown[]) => Promise<unknown>)({ probe: channel }, 'extra', () => 'smuggled');
      expect(fake.ipcRenderer.invoked).toEqual([[`vpn:${channel}`, { probe: channel }]]);
      // The answer goes to the page as the main process gave it (the page's client unwraps it).
      expect(answer).toEqual({ ok: true, value: { answered: `vpn:${channel}` } });
    }
  });

  it('on() subscribes to the contract’s events only and hands over the payload, never the IPC event', () => {
    const seen: unknown[][] = [];
    const off = api.on('statuses', (...args: unknown[]) => seen.push(args));
    fake.ipcRenderer.deliver('vpn:event:statuses', [{ serverId: 's1' }]);
    expect(seen).toEqual([[[{ serverId: 's1' }]]]);
    off();
    fake.ipcRenderer.deliver('vpn:event:statuses', []);
    expect(seen).toHaveLength(1);
    expect(fake.ipcRenderer.listeners.get('vpn:event:statuses')?.size ?? 0).toBe(0);
  });

  it('every contract event can be subscribed to', () => {
    for (const event of EVENT_NAMES) {
      const off = api.on(event, () => undefined);
      expect(fake.ipcRenderer.listeners.get(`vpn:event:${event}`)?.size).toBe(1);
      off();
    }
  });

  it('refuses other channels and non-function listeners', () => {
    const on = api.on as unknown as (event: string, listener: unknown) => () => void;
    expect(() => on('vpn:connect', () => undefined)).toThrow(/unknown event/);
    expect(() => on('__proto__', () => undefined)).toThrow(/unknown event/);
    expect(() => on('snapshot', 'not a function')).toThrow(/must be a function/);
  });
});
