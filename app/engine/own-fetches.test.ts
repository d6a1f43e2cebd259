import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { OWN_FETCH_GRACE_MS, OwnFetchDestinations } from './own-fetches';

describe('the destinations of the app’s own fetches through the tunnel', async () => {
  it('counts while the fetch runs and for the grace period after, then no longer', async () => {
    const clock = new FakeClock();
    const own = new OwnFetchDestinations(clock);
    expect(own.has('provider.example:443')).toBe(false);
    const done = own.begin('Provider.example:443');
    expect(own.has('provider.example:443')).toBe(true);
    await clock.advance(60_000);
    expect(own.has('provider.example:443')).toBe(true);
    done();
    await clock.advance(OWN_FETCH_GRACE_MS);
    expect(own.has('provider.example:443')).toBe(true);
    await clock.advance(1);
    expect(own.has('provider.example:443')).toBe(false);
  });

  it('another destination, or none, is never the app’s own; two fetches of one count until both end', async () => {
    const clock = new FakeClock();
    const own = new OwnFetchDestinations(clock);
    const first = own.begin('127.0.0.1:1');
    const second = own.begin('127.0.0.1:1');
    expect(own.has('127.0.0.1:2')).toBe(false);
    expect(own.has(null)).toBe(false);
    first();
    first();
    await clock.advance(OWN_FETCH_GRACE_MS + 1);
    expect(own.has('127.0.0.1:1')).toBe(true);
    second();
    await clock.advance(OWN_FETCH_GRACE_MS + 1);
    expect(own.has('127.0.0.1:1')).toBe(false);
  });
});
