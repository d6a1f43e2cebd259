import { describe, expect, it } from 'vitest';
import { counterDelta, sentTowardsServer, trafficDelta } from './traffic-delta';

describe('stats diffing', () => {
  it.each([
    ['first reading counts everything since the core started', null, 1500, 1500],
    ['growth is the difference', 1500, 4000, 2500],
    ['no traffic is zero', 4000, 4000, 0],
    ['a counter that went down means the core restarted', 4000, 300, 300],
  ])('%s', (_name, previous, current, delta) => {
    expect(counterDelta(previous, current)).toBe(delta);
  });

  it('diffs up and down independently', () => {
    expect(trafficDelta({ up: 10, down: 100 }, { up: 15, down: 5 })).toEqual({ up: 5, down: 5 });
  });

  it('the deltas of a series add up to the final counter, even across a restart', () => {
    const readings = [0, 100, 250, 250, 900, 40, 80, 1000];
    let previous: number | null = null;
    let sum = 0;
    for (const r of readings) {
      sum += counterDelta(previous, r);
      previous = r;
    }
    expect(sum).toBe(900 + 1000);
  });
});

describe('sentTowardsServer', () => {
  it.each([
    // name, proxy outbound uplink, user inbounds' uplink, direct outbound uplink, direct moved bytes now or just before, sent to the server
    ['v2ray counts the proxy uplink itself (encrypted bytes, more than the plain request)', 184, 120, 0, false, 184],
    ['Xray 26 leaves its proxy uplink at zero: the inbounds stand in (a blackholed server still shows sending)', 0, 124, 0, false, 124],
    ['while anything goes direct, a CONNECT line or proxy header left in the inbound is not taken for the server’s', 0, 5090, 5000, true, 0],
    ['while anything goes direct, the proxy counter still counts where the core keeps it', 300, 5390, 5000, true, 300],
    ['direct counted ahead of its inbound bytes never makes the figure negative', 0, 100, 400, false, 0],
    ['idle', 0, 0, 0, false, 0],
  ])('%s', (_name, proxyUp, userInboundUp, directUp, directActive, sent) => {
    expect(sentTowardsServer({ proxyUp, userInboundUp, directUp, directActive })).toBe(sent);
  });
});
