import { describe, expect, it } from 'vitest';
import type { TrafficSample } from '../../shared/domain/connection';
import { FakeClock } from '../testing/fake-clock';
import { ANTI_DPI_INBOUND_TAG, userInboundTags } from '../core';
import { type CounterSource, TrafficMeter } from './traffic-meter';

/** Counters as a core keeps them: cumulative, answered per query, able to fail. */
class ScriptedCounters implements CounterSource {
  up = 0;
  down = 0;
  failNext = 0;
  queries = 0;
  async query(pattern: string) {
    this.queries++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('stats query failed: unavailable');
    }
    return new Map([
      [`${pattern}uplink`, this.up],
      [`${pattern}downlink`, this.down],
      ['outbound>>>direct>>>traffic>>>downlink', 999],
    ]);
  }
}

function meter() {
  const clock = new FakeClock();
  const source = new ScriptedCounters();
  const samples: TrafficSample[] = [];
  const errors: string[] = [];
  const m = new TrafficMeter({ source, clock, onSample: (s) => samples.push(s), onError: (e) => errors.push(e), intervalMs: 250 });
  return { clock, source, samples, errors, m };
}

describe('TrafficMeter', () => {
  it('emits the bytes of each interval of the proxy outbound', async () => {
    const { clock, source, samples, m } = meter();
    m.start();
    source.up = 100;
    source.down = 5000;
    await clock.advance(250);
    source.up = 150;
    source.down = 9000;
    await clock.advance(250);
    await clock.advance(250);
    expect(samples.map((s) => [s.intervalMs, s.upBytes, s.downBytes])).toEqual([
      [250, 100, 5000],
      [250, 50, 4000],
      [250, 0, 0],
    ]);
    m.stop();
  });

  it('loses no bytes when a poll fails: the next sample carries them over a longer interval', async () => {
    const { clock, source, samples, errors, m } = meter();
    m.start();
    await clock.advance(250);
    source.failNext = 2;
    source.down = 3000;
    await clock.advance(500);
    source.down = 4000;
    await clock.advance(250);
    expect(samples.map((s) => [s.intervalMs, s.downBytes])).toEqual([
      [250, 0],
      [750, 4000],
    ]);
    expect(errors).toEqual(['stats query failed: unavailable']);
    m.stop();
  });

  it('stops polling when stopped', async () => {
    const { clock, source, m } = meter();
    m.start();
    await clock.advance(500);
    m.stop();
    const before = source.queries;
    await clock.advance(2000);
    expect(source.queries).toBe(before);
    expect(clock.pendingCount()).toBe(0);
  });

  it('reports direct bytes apart: a big direct download never counts as traffic through the server', async () => {
    const clock = new FakeClock();
    const counters = new Map<string, number>();
    const source: CounterSource = { query: async (pattern) => new Map([...counters].filter(([name]) => name.includes(pattern))) };
    const samples: TrafficSample[] = [];
    const m = new TrafficMeter({ source, clock, onSample: (s) => samples.push(s), intervalMs: 250, outboundTag: 'proxy', directTag: 'direct' });
    m.start();
    counters.set('outbound>>>proxy>>>traffic>>>uplink', 300);
    counters.set('outbound>>>direct>>>traffic>>>uplink', 2000);
    counters.set('outbound>>>direct>>>traffic>>>downlink', 8_000_000);
    await clock.advance(250);
    counters.set('outbound>>>direct>>>traffic>>>downlink', 9_000_000);
    await clock.advance(250);
    expect(samples.map((s) => [s.upBytes, s.downBytes, s.direct?.upBytes, s.direct?.downBytes])).toEqual([
      [300, 0, 2000, 8_000_000],
      [0, 0, 0, 1_000_000],
    ]);
    m.stop();
  });

  it('counts what entered the user inbounds, less the direct outbound, when the core leaves the proxy uplink at zero (Xray 26)', async () => {
    const clock = new FakeClock();
    const counters = new Map<string, number>();
    const patterns: string[] = [];
    const source: CounterSource = {
      query: async (pattern) => {
        patterns.push(pattern);
        return new Map([...counters].filter(([name]) => name.includes(pattern)));
      },
    };
    const samples: TrafficSample[] = [];
    const m = new TrafficMeter({ source, clock, onSample: (s) => samples.push(s), intervalMs: 250, outboundTag: 'proxy', directTag: 'direct', userInboundTags: ['http-in', 'socks-in'] });
    m.start();
    // A request sent through a blackholed server: the inbounds saw it, the proxy counter did not.
    counters.set('inbound>>>http-in>>>traffic>>>uplink', 120);
    counters.set('inbound>>>socks-in>>>traffic>>>uplink', 64);
    counters.set('inbound>>>api>>>traffic>>>uplink', 900);
    await clock.advance(250);
    // Then a direct upload of 5,000 bytes, its CONNECT line (90 bytes) left in the inbound: not the server's.
    counters.set('inbound>>>socks-in>>>traffic>>>uplink', 64 + 5090);
    counters.set('outbound>>>direct>>>traffic>>>uplink', 5000);
    await clock.advance(250);
    // The interval after direct traffic: a late header of it is not taken for the server's either.
    counters.set('inbound>>>socks-in>>>traffic>>>uplink', 64 + 5090 + 40);
    await clock.advance(250);
    // Quiet direct, a request towards the server again: counted, an interval late.
    counters.set('inbound>>>http-in>>>traffic>>>uplink', 120 + 300);
    await clock.advance(250);
    await clock.advance(250);
    // A CONNECT line of a direct connection entering the inbound an interval before its bytes move.
    counters.set('inbound>>>socks-in>>>traffic>>>uplink', 64 + 5090 + 40 + 90);
    await clock.advance(250);
    counters.set('outbound>>>direct>>>traffic>>>uplink', 5000 + 2000);
    counters.set('inbound>>>socks-in>>>traffic>>>uplink', 64 + 5090 + 40 + 90 + 2000);
    await clock.advance(250);
    // The stand-in for each interval comes with the next sample, and only when neither went direct:
    // the first request's 184 bytes are dropped (the next interval went direct), the later one's 300
    // are counted an interval late, the direct upload's and its CONNECT line's never.
    expect(samples.map((s) => [s.upBytes, s.downBytes, s.direct?.upBytes])).toEqual([
      [0, 0, 0],
      [0, 0, 5000],
      [0, 0, 0],
      [0, 0, 0],
      [300, 0, 0],
      [0, 0, 0],
      [0, 0, 2000],
    ]);
    expect(new Set(patterns)).toEqual(new Set(['>>>traffic>>>']));
    m.stop();
  });
  it('counts a group’s bytes as the group’s: its stall is not the main connection sending, and the main one’s is not the group’s', async () => {
    const clock = new FakeClock();
    const counters = new Map<string, number>();
    const source: CounterSource = { query: async (pattern) => new Map([...counters].filter(([name]) => name.includes(pattern))) };
    const samples: TrafficSample[] = [];
    const m = new TrafficMeter({
      source,
      clock,
      onSample: (s) => samples.push(s),
      intervalMs: 250,
      outboundTag: 'proxy',
      directTag: 'direct',
      userInboundTags: ['http-in'],
      groups: () => [{ name: 'AI', tags: ['group:AI', 'group:AI/dial'] }],
    });
    m.start();
    const add = (name: string, bytes: number) => counters.set(name, (counters.get(name) ?? 0) + bytes);
    // The group's server swallows everything: requests go in, its dialer sends them, nothing comes back.
    for (let i = 0; i < 8; i++) {
      add('inbound>>>http-in>>>traffic>>>uplink', 300);
      // Its dialer counts each request an interval later, with the protocol's header on top.
      if (i > 0) add('outbound>>>group:AI/dial>>>traffic>>>uplink', 340);
      await clock.advance(250);
    }
    // Then the main server swallows a request while the group's last one goes out.
    add('inbound>>>http-in>>>traffic>>>uplink', 500);
    add('outbound>>>group:AI/dial>>>traffic>>>uplink', 340);
    await clock.advance(250);
    await clock.advance(250);
    // Before this was counted, every one of these read 300 bytes sent to the main server.
    expect(samples.slice(0, 9).map((s) => s.upBytes)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(samples.slice(1, 9).map((s) => s.groups?.AI)).toEqual(Array(8).fill({ upBytes: 340, downBytes: 0 }));
    // The main connection's request, less the group's last header (40 bytes, one interval's worth at most).
    expect(samples[9]!.upBytes).toBe(460);
    expect(samples[9]!.groups?.AI).toEqual({ upBytes: 0, downBytes: 0 });
    m.stop();
  });
  it('a carried server’s anti-DPI inbound is not the user’s: the bytes coming back through it from the carrier are not counted again', async () => {
    const clock = new FakeClock();
    const counters = new Map<string, number>();
    const source: CounterSource = { query: async (pattern) => new Map([...counters].filter(([name]) => name.includes(pattern))) };
    const samples: TrafficSample[] = [];
    const m = new TrafficMeter({ source, clock, onSample: (s) => samples.push(s), intervalMs: 250, outboundTag: 'proxy', directTag: 'direct', userInboundTags: userInboundTags({}) });
    m.start();
    const add = (name: string, bytes: number) => counters.set(name, (counters.get(name) ?? 0) + bytes);
    // A blackholed carried server: 300 bytes from the user, on to the carrier, and back through the
    // anti-DPI inbound with the server protocol's framing; nothing comes back.
    add('inbound>>>http-in>>>traffic>>>uplink', 300);
    add(`inbound>>>${ANTI_DPI_INBOUND_TAG}>>>traffic>>>uplink`, 380);
    add('outbound>>>anti-dpi>>>traffic>>>uplink', 380);
    await clock.advance(250);
    await clock.advance(250);
    expect(samples.map((s) => [s.upBytes, s.downBytes])).toEqual([
      [0, 0],
      [300, 0],
    ]);
    m.stop();
  });
});
