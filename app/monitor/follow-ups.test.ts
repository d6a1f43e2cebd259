import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../shared/domain/server';
import { type MonitorSettings, monitorSettingsSchema } from '../../shared/settings';
import { AnswerFollowUps } from './follow-ups';
import type { LookupRequest } from './ipinfo/lookups';
import type { Ipv6CheckRequest } from './ipv6/checks';
import { ServerRecords } from './records';
import type { UrlWritten } from './results';
import { ServerDirectory } from './servers';
import { fakeServer } from './testing/harness';

function followUps(options: { settings?: Partial<MonitorSettings>; running?: boolean; ipInfo?: boolean } = {}) {
  const records = new ServerRecords();
  const list = [fakeServer('a'), fakeServer('b', { via: 'a' }), fakeServer('c', { via: 'a' }), fakeServer('d', { ipv6: true })];
  const servers = new ServerDirectory(() => list, records);
  const settings = monitorSettingsSchema.parse({ verifyIpv6: true, ...options.settings });
  const asked = { lookups: [] as LookupRequest[], ipv6: [] as Ipv6CheckRequest[], transfers: [] as string[], retests: [] as ServerId[][], lines: [] as string[] };
  const ipv6Busy = new Set<ServerId>();
  const target = new AnswerFollowUps({
    settings: () => settings,
    records,
    servers,
    activity: { running: options.running ?? true },
    urls: { current: () => 'http://test.example/generate_204' },
    lookups: options.ipInfo === false ? null : { request: (r) => void asked.lookups.push(r) },
    ipv6Checks: { busy: (id) => ipv6Busy.has(id), request: (r) => void asked.ipv6.push(r) },
    transfers: { considerAfterAnswer: (id, at) => void asked.transfers.push(`${id}@${at}`) },
    events: {
      testNow: async (ids) => {
        asked.retests.push([...ids]);
        return [];
      },
    },
    log: (line) => void asked.lines.push(line),
  });
  return { target, records, asked, ipv6Busy };
}

const answer = (serverId: ServerId, extra: Partial<UrlWritten> = {}): UrlWritten => ({ serverId, ok: true, at: 1000, recovered: false, immediate: false, ...extra });

describe('what an answer sets off', () => {
  it('asks for IP info, the IPv6 check and the transfer test after an answer, and nothing after a failure', () => {
    const { target, asked } = followUps();
    target.written(answer('a', { ok: false }));
    expect(asked).toMatchObject({ lookups: [], ipv6: [], transfers: [], retests: [] });
    target.written(answer('a', { immediate: true }));
    expect(asked.lookups).toEqual([{ serverId: 'a', measuredAt: 1000, immediate: true }]);
    expect(asked.ipv6).toEqual([{ serverId: 'a', url: 'http://test.example/generate_204', immediate: true }]);
    expect(asked.transfers).toEqual(['a@1000']);
  });

  it('looks up IP info again only while what is known came from the cache', () => {
    const { target, records, asked } = followUps();
    records.ensure('a').ipInfo = { ip: '192.0.2.1', source: 'ipapi.co', fromCache: true, at: 0 };
    target.written(answer('a'));
    records.setIpInfo('a', { ip: '192.0.2.1', source: 'ipapi.co' }, 1000);
    target.written(answer('a', { at: 2000 }));
    expect(asked.lookups.map((r) => r.measuredAt)).toEqual([1000]);
  });

  it('asks for no IP info when lookups are off (sweep benchmarks)', () => {
    const { target, asked } = followUps({ ipInfo: false });
    target.written(answer('a'));
    expect(asked.lookups).toEqual([]);
    expect(asked.transfers).toEqual(['a@1000']);
  });

  it.each([
    ['verify_ipv6 is off', { settings: { verifyIpv6: false } }, 'a'],
    ['the subscription declares IPv6', {}, 'd'],
    ['the monitor is stopped', { running: false }, 'a'],
  ])('checks no IPv6 when %s', (_why, options, id) => {
    const { target, asked } = followUps(options);
    target.written(answer(id));
    expect(asked.ipv6).toEqual([]);
  });

  it('checks IPv6 once a run: not while a check runs, not after one this run', () => {
    const { target, records, asked, ipv6Busy } = followUps();
    ipv6Busy.add('a');
    target.written(answer('a'));
    ipv6Busy.clear();
    records.setIpv6('a', true, 'answered through ::1', 1500);
    target.written(answer('a', { at: 2000 }));
    expect(asked.ipv6).toEqual([]);
  });

  it('retests the servers chained through a server that works again after failing, and says so', () => {
    const { target, asked } = followUps();
    target.written(answer('a', { recovered: true }));
    target.written(answer('d', { recovered: true }));
    expect(asked.retests).toEqual([['b', 'c']]);
    expect(asked.lines).toEqual(['server a works again after failing: retesting 2 server(s) chained through it']);
  });
});
