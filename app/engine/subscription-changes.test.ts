import { describe, expect, it } from 'vitest';
import { profileFromTable } from '../core/testing/profile';
import { ServerCatalog } from './server-catalog';
import { followSubscriptions } from './subscription-changes';
import { subscriptionOf, vlessServer } from './testing/servers';

describe('a change of the subscription list', () => {
  it('every service reads the new servers; the window gets them without credentials, with what cannot run', () => {
    const catalog = new ServerCatalog(profileFromTable('v2ray', '4.34.0'));
    const heard: string[] = [];
    const sent: unknown[] = [];
    const serversSeen = () => catalog.index.all().map((s) => s.id).join(',');
    followSubscriptions([subscriptionOf('s1', [vlessServer('a', 's1'), vlessServer('r', 's1', {}, true)])], {
      catalog,
      setProbedServers: (servers) => heard.push(`probes: ${servers.map((s) => s.id).join(',')}`),
      monitor: { serversChanged: () => heard.push(`monitor: ${serversSeen()}`) },
      reachability: { refresh: () => heard.push(`reachability: ${serversSeen()}`) },
      auto: { subscriptionsUpdated: () => heard.push(`auto: ${catalog.autoView().map((s) => s.serverIds.join(',')).join(' | ')}`) },
      publish: { subscriptions: (list) => sent.push(list), unsupported: (reasons) => sent.push(reasons) },
    });
    expect(heard).toEqual(['probes: a,r', 'monitor: a,r', 'reachability: a,r', 'auto: a,r']);
    const [list, unsupported] = sent as [{ servers: object[] }[], Record<string, string>];
    expect(list[0]?.servers.map((s) => 'uuid' in s)).toEqual([false, false]);
    expect(catalog.index.get('a')).toMatchObject({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(unsupported).toEqual({ r: 'not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0' });
  });
});
