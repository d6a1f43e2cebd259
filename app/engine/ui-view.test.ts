import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { fakeServer, monitorHarness } from '../monitor/testing/harness';
import { parseSubscription } from '../subscriptions/parse';
import { assignIds } from '../subscriptions/identity';
import { statusForList, subscriptionForUi } from './ui-view';

const links = [
  'vmess://' + Buffer.from(JSON.stringify({ v: '2', ps: 'vm', add: '1.2.3.4', port: '443', id: '3f1c2a4e-9b7d-4c1e-8a2b-0d9e8f7a6b5c', aid: '0', net: 'tcp' })).toString('base64'),
  'vless://7d0e4c2a-1111-4222-8333-944445555666@v.example:443?encryption=none&security=tls&sni=v.example#vl',
  'trojan://Tr0janS3cret@t.example:443#tr',
  'ss://' + Buffer.from('aes-128-gcm:SsP4ssword!').toString('base64url') + '@s.example:8388#ss',
  'hysteria2://Hy2Secret@h.example:443?obfs=salamander&obfs-password=0bfsPass#hy',
  'tuic://2b0f6a1e-aaaa-4bbb-8ccc-9ddddeeeeeee:TuicPass@u.example:443?congestion_control=bbr#tu',
  'socks://' + Buffer.from('alice:S0cksPass').toString('base64') + '@p.example:1080#so',
];
const secrets = ['3f1c2a4e-9b7d-4c1e-8a2b-0d9e8f7a6b5c', '7d0e4c2a-1111-4222-8333-944445555666', 'Tr0janS3cret', 'SsP4ssword!', 'Hy2Secret', '0bfsPass', '2b0f6a1e-aaaa-4bbb-8ccc-9ddddeeeeeee', 'TuicPass', 'S0cksPass'];

describe('what the UI is sent', () => {
  it('keeps every server but none of their credentials', () => {
    const parsed = parseSubscription(links.join('\n'));
    expect(parsed.servers).toHaveLength(links.length);
    const servers: Server[] = assignIds('s', [], parsed.servers);
    const text = JSON.stringify(servers);
    for (const secret of secrets) expect(text).toContain(secret);
    const ui = subscriptionForUi({ id: 's', name: 'S', servers, usage: null, rejected: [], updatedAt: 1, lastError: null, pendingEmpty: false });
    const sent = JSON.stringify(ui);
    for (const secret of secrets) expect(sent).not.toContain(secret);
    expect(ui.servers.map((s) => [s.id, s.name, s.protocol, s.address, s.port])).toEqual(servers.map((s) => [s.id, s.name, s.protocol, s.address, s.port]));
  });

  it('sends each server as the list shows it: no transport or security settings, a fraction of the bytes', () => {
    const servers: Server[] = assignIds('s', [], parseSubscription(links.join('\n')).servers);
    const ui = subscriptionForUi({ id: 's', name: 'S', servers, usage: null, rejected: [], updatedAt: 1, lastError: null, pendingEmpty: false });
    for (const server of ui.servers) expect(Object.keys(server).sort()).toEqual(['address', 'id', 'name', 'port', 'protocol', 'subscriptionId']);
    expect(JSON.stringify(ui.servers).length).toBeLessThan(JSON.stringify(servers).length / 2);
  });
});

describe("a status as the window's list holds it", () => {
  it('keeps what rows, search, sort and filters read, and leaves the statistics and measurements out', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], withDirectCheck: false });
    h.prober.set('a', { answerMs: 120 });
    const tested = h.monitor.testStaged('a');
    await h.clock.advance(120);
    const status = await tested;
    expect(status.recent).not.toEqual([]);
    const { statistics: _statistics, recent: _recent, ...rest } = status;
    expect(statusForList(status)).toEqual(rest);
    expect(rest).toMatchObject({ serverId: 'a', delayMs: 120 });
  });
});
