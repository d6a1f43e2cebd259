import { describe, expect, it } from 'vitest';
import { bridgeOver } from '../../../shared/ipc/answer';
import { createFakeClient } from '../testing/fake-client';
import { sampleSnapshot } from '../testing/sample-world';
import { pickClient } from './pick';

describe('pickClient', () => {
  it('uses the Electron preload’s bridge when the page runs in the app’s window: its values, and its refusals thrown with their code', async () => {
    const host = createFakeClient(sampleSnapshot(0));
    const picked = pickClient({ vpn: bridgeOver(host) } as unknown as Window);
    expect(picked.link()).toBe('open');
    expect((await picked.client.getSnapshot({})).subscriptions).toEqual(host.snapshot.subscriptions);
    await expect(picked.client.shareLink({ serverId: 'gone' })).rejects.toMatchObject({ name: 'EngineRefusal', code: 'no-such-server' });
    host.failNext('testAll', 'the monitor is not running');
    await expect(picked.client.testAll({})).rejects.toThrow('the monitor is not running');
  });

  it('explains what to do when a browser page has no token', () => {
    const win = {
      location: { href: 'http://127.0.0.1:4000/' },
      sessionStorage: { getItem: () => null, setItem: () => undefined },
      history: { state: null, replaceState: () => undefined },
    } as unknown as Window;
    expect(() => pickClient(win)).toThrow(/address printed by the app/);
  });
});
