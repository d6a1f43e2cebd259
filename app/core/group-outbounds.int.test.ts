import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { Server } from '../../shared/domain/server';
import { parseLinkList } from '../subscriptions/parse/links';
import { requestThroughProxy } from '../tunnel/proxy-request';
import { freePorts, startCore, waitForPort, type RunningCore } from './int-support';
import { type CoreProfile, detectCore, writeConfigFile } from './index';
import { coreRunArgs } from './run-core';
import { groupOutboundsOf, groupReceivedStat, groupSentStat, groupTag, groupTags } from './group-outbounds';
import { StatsClient } from '../tunnel/stats-client';
import { XrayOutboundSwap } from './group-swap';
import type { CoreRouting } from './routing-config';
import { labCore } from './testing/cores';
import { tunnelConfig } from './tunnel-config';

// A group beside the main connection in one real Xray: names under ai.lab.test leave through the
// group's pick, the rest through the main server, and the group's outbound is swapped live
// (HandlerService) for another member while a download through the main server goes on.

let lab: InProcessLab;
let core: CoreProfile;
let xray: RunningCore;
let swap: XrayOutboundSwap;
let proxy = '';
let servers: Server[];
let dir = '';
let stats: StatsClient;

const exitOf = (i: number) => lab.info.servers[i]!.exitIp;
/** The IP-info stand-in's URL, by address (the main route) or by a name under ai.lab.test (the group's). */
const ipInfoUrl = (host?: string) => {
  const url = new URL(lab.info.ipinfoUrls['api.country.is']);
  if (host) url.hostname = host;
  return url.toString();
};
async function exitSeen(host?: string): Promise<string | null> {
  const result = await requestThroughProxy({ proxyUrl: proxy, url: ipInfoUrl(host), timeoutMs: 3000, maxBytes: 4096 });
  return result.ok ? (JSON.parse(result.body.toString()) as { ip: string }).ip : null;
}

beforeAll(async () => {
  lab = await startLab({ servers: 4, subscriptions: 1, seed: 7, latency: [10, 20] });
  core = await detectCore(labCore('xray'));
  dir = await mkdtemp(join(tmpdir(), 'group-outbounds-'));
  servers = lab.info.servers.map((s, i) => ({ ...parseLinkList(s.shareLink).servers[0]!, id: `s${i}`, subscriptionId: 'A' }) as Server);
  const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
  const routing: CoreRouting = {
    domainStrategy: 'AsIs',
    routes: [{ outbound: groupTag('AI'), domain: ['domain:ai.lab.test'] }],
    hosts: {},
    dns: { remote: lab.info.resolver, domestic: 'system', directDomains: [] },
  };
  const config = tunnelConfig({ server: servers[0]!, core, listen: '127.0.0.1', httpPort, socksPort, apiPort, logLevel: 'info', routing, groups: [{ name: 'AI', pick: { server: servers[1]! } }] });
  xray = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, 'tunnel-groups', config)), { XRAY_BUF_SPLICE: 'disable' });
  await waitForPort(httpPort);
  proxy = `http://127.0.0.1:${httpPort}`;
  stats = new StatsClient(`127.0.0.1:${apiPort}`, 'xray');
  swap = new XrayOutboundSwap({ corePath: core.path, apiAddress: `127.0.0.1:${apiPort}`, runtimeDir: dir });
}, 60_000);

afterAll(async () => {
  await xray?.stop();
  await lab?.stop();
});

describe('a group’s outbound beside the main connection, on Xray', () => {
  it('names under ai.lab.test leave through the group’s pick, everything else through the main server', async () => {
    expect(await exitSeen('x.ai.lab.test')).toBe(exitOf(1));
    expect(await exitSeen()).toBe(exitOf(0));
    expect(await exitSeen('www.lab.test')).toBe(exitOf(0));
  });

  it('the group’s traffic has counters of its own, apart from the main connection’s', async () => {
    await stats.query('outbound>>>', 1000, true);
    const url = new URL(`${lab.info.bytes}/100000`);
    url.hostname = 'x.ai.lab.test';
    const result = await requestThroughProxy({ proxyUrl: proxy, url: url.toString(), timeoutMs: 5000, maxBytes: 200_000 });
    expect(result.ok && result.body.length).toBe(100_000);
    const counted = await stats.query('outbound>>>', 1000, true);
    expect(counted.get(groupSentStat('AI'))).toBeGreaterThan(0);
    expect(counted.get(groupReceivedStat('AI'))).toBeGreaterThanOrEqual(100_000);
    expect(counted.get('outbound>>>proxy>>>traffic>>>downlink') ?? 0).toBe(0);
  });

  it('a live swap moves the group to another member; a download through the main server started before it completes whole', async () => {
    const download = requestThroughProxy({ proxyUrl: proxy, url: `${lab.info.bytes}/3000000`, timeoutMs: 20_000, maxBytes: 4_000_000 });
    const started = Date.now();
    await swap.replace(groupTags('AI'), groupOutboundsOf({ name: 'AI', pick: { server: servers[2]! } }, core));
    const swapMs = Date.now() - started;
    expect(await exitSeen('x.ai.lab.test')).toBe(exitOf(2));
    expect(await exitSeen()).toBe(exitOf(0));
    const main = await download;
    expect(main.ok && main.body.length).toBe(3_000_000);
    expect(xray.child.exitCode).toBeNull();
    console.log(JSON.stringify({ group_swap_ms: swapMs }));
  }, 30_000);

  it('a group with no pick blocks its traffic at once and the rest works', async () => {
    await swap.replace(groupTags('AI'), groupOutboundsOf({ name: 'AI', pick: null }, core));
    const blocked = await requestThroughProxy({ proxyUrl: proxy, url: ipInfoUrl('x.ai.lab.test'), timeoutMs: 3000, maxBytes: 4096 });
    expect(blocked.ok).toBe(false);
    expect(await exitSeen()).toBe(exitOf(0));
  });
});
