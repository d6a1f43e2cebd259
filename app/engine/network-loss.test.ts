import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { NetworkLossPort } from './network-loss';

describe('NetworkLossPort', () => {
  it("says nothing before Auto is plugged in, then follows Auto's network-lost window", async () => {
    const clock = new FakeClock(1000);
    const port = new NetworkLossPort(clock);
    expect(port.reason()).toBeNull();
    let networkLostUntil: number | null = 1500;
    port.connect({ snapshot: () => ({ networkLostUntil }) });
    expect(port.reason()).toBe('Auto found the network lost');
    await clock.advance(500);
    expect(port.reason()).toBeNull();
    networkLostUntil = null;
    expect(port.reason()).toBeNull();
  });

  it('takes the silence of every server asked for a lost network before Auto has confirmed it', () => {
    const port = new NetworkLossPort(new FakeClock(1000));
    let networkSilentSince: number | null = 900;
    port.connect({ snapshot: () => ({ networkLostUntil: null, networkSilentSince }) });
    expect(port.reason()).toBe('no server of any subscription answers');
    networkSilentSince = null;
    expect(port.reason()).toBeNull();
  });
});
