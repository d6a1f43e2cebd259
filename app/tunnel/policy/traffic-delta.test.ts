import { describe, expect, it } from 'vitest';
import { counterDelta, groupShare, sentTowardsServer, trafficDelta } from './traffic-delta';

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

describe('groupShare: the bytes a server group carried are not the main connection sending', () => {
  it.each([
    // name, inbound bytes of the interval (direct out), group bytes left from that interval, group bytes of the next, groups' share, left for the next
    ['no groups: all of it is the main connection’s', 300, 0, 0, 0, 0],
    ['a group request counted by its dialer in the same interval', 300, 420, 0, 300, 0],
    ['counted in the next interval (the dial took a moment)', 300, 0, 420, 300, 120],
    ['the main connection and a group both sent: only the group’s part is taken', 1000, 0, 300, 300, 0],
    ['the next interval’s credit is used first, then the earlier, whose rest is dropped', 200, 250, 100, 200, 0],
    ['the header overhead carries over one interval only', 300, 40, 340, 300, 40],
    ['credit never exceeds what came in', 0, 500, 500, 0, 500],
  ])('%s', (_name, userBytes, earlier, now, groups, left) => {
    expect(groupShare(userBytes, { earlier, now })).toEqual({ groups, left });
  });

  it('a group whose server stopped answering leaves the main connection idle, not sending', () => {
    // The user's programs keep sending to the group (its retries); its dialer counts them going out.
    const groups = groupShare(640, { earlier: 0, now: 700 }).groups;
    expect(sentTowardsServer({ proxyUp: 0, userInboundUp: 640, directUp: 0, directActive: false, groupUp: groups })).toBe(0);
    // Without the groups' share this was taken for 640 bytes sent to the main server.
    expect(sentTowardsServer({ proxyUp: 0, userInboundUp: 640, directUp: 0, directActive: false })).toBe(640);
  });
});
