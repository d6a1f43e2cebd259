import { describe, expect, it } from 'vitest';
import { createFakeClient } from '../testing/fake-client';
import { sampleSnapshot } from '../testing/sample-world';
import { pickClient } from './pick';

describe('pickClient', () => {
  it('uses the Electron preload’s client when the page runs in the app’s window', () => {
    const vpn = createFakeClient(sampleSnapshot(0));
    const picked = pickClient({ vpn } as unknown as Window);
    expect(picked.client).toBe(vpn);
    expect(picked.link()).toBe('open');
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
