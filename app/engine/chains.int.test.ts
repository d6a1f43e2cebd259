import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListServer } from '../../shared/ipc/contract';
import type { AppSnapshot } from '../../shared/ipc/contract';
import { type InProcessLab, labRouting, startLab } from '../../e2e/lab';
import { labCore } from '../core/testing/cores';
import { memoryLogger } from '../log/logger';
import { requestThroughProxy } from '../tunnel/proxy-request';
import { freePorts } from '../tunnel/ports';
import { waitFor } from '../testing/wait';
import { createEngine, type Engine } from './engine';

// A chain chosen in a server's details, run by the real Xray against the lab: the landing server
// is dialled through the front's relay, the exit is the landing's, the monitor measures the pair
// through the front, and Auto takes the pair for one server whose front dying is its failure.

let lab: InProcessLab;
let engine: Engine;
const log = memoryLogger('info');
let front: ListServer;
let landing: ListServer;
let others: ListServer[];

const snapshot = (): Promise<AppSnapshot> => engine.getSnapshot({});
const labServerOf = (server: ListServer) => lab.info.servers.find((s) => s.relay === `${server.address}:${server.port}`)!;

async function throughTunnel(url: string, timeoutMs = 3000) {
  const proxy = (await snapshot()).connection.httpProxy;
  return proxy ? requestThroughProxy({ proxyUrl: proxy, url, timeoutMs, maxBytes: 1 << 20 }) : null;
}

async function exitIp(timeoutMs = 3000): Promise<string | null> {
  const result = await throughTunnel(lab.info.ipinfoUrls['api.country.is'], timeoutMs);
  return result?.ok ? (JSON.parse(result.body.toString()) as { ip: string }).ip : null;
}

beforeAll(async () => {
  lab = await startLab({ servers: 4, subscriptions: 1, seed: 5, latency: [20, 40] });
  const [httpPort, socksPort] = await freePorts(2);
  engine = await createEngine({
    dataDir: mkdtempSync(join(tmpdir(), 'chains-')),
    logger: log.logger,
    watchNetwork: false,
    settingsOverrides: {
      corePath: labCore('xray'),
      httpPort,
      socksPort,
      monitor: { urls: [lab.info.target], ipInfoUrls: lab.info.ipinfoUrls, transferTestUrl: `${lab.info.bytes}/{bytes}`, debounceWindowMs: 200 },
      ...labRouting(lab.info),
    },
  });
  await engine.addSubscription({ url: lab.info.subscriptions[0]!.url });
  const servers = (await snapshot()).subscriptions[0]!.servers;
  [front, landing] = servers as [ListServer, ListServer];
  others = servers.slice(2);
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await lab?.stop();
});

describe('a chain chosen in the details, on Xray', () => {
  it('the landing server is reached through the front: its exit is the landing’s, the front’s relay carries the bytes', async () => {
    expect((await snapshot()).core?.family).toBe('xray');
    await engine.setSettings({ chains: { [landing.id]: front.id } });
    expect((await snapshot()).subscriptions[0]!.servers.find((s) => s.id === landing.id)?.via).toBe(front.id);

    await engine.connect({ serverId: landing.id });
    expect(await exitIp()).toBe(labServerOf(landing).exitIp);
    const before = await lab.counters();
    const download = await throughTunnel(`${lab.info.bytes}/200000`);
    expect(download?.ok && download.body.length).toBe(200_000);
    const after = await lab.counters();
    const carried = (id: string) => after.servers[id]!.bytesDown - before.servers[id]!.bytesDown;
    // Both relays carried the download: the front's (the hop the network sees), then the landing's.
    expect(carried(labServerOf(front).id)).toBeGreaterThanOrEqual(200_000);
    expect(carried(labServerOf(landing).id)).toBeGreaterThanOrEqual(200_000);
    for (const other of others) expect(carried(labServerOf(other).id)).toBe(0);
  }, 30_000);

  it('the monitor measures the pair through the front: the landing’s exit, a delay over both hops', async () => {
    await engine.testAll({});
    const s = await waitFor(
      'every server measured with its exit',
      async () => {
        const snap = await snapshot();
        return [front, landing, ...others].every((x) => snap.statuses[x.id]?.ipInfo && snap.statuses[x.id]?.testedAt) && snap;
      },
      30_000,
    );
    expect(s.statuses[landing.id]!.ipInfo?.ip).toBe(labServerOf(landing).exitIp);
    expect(s.statuses[landing.id]!.delayMs).toBeGreaterThan(2 * (labServerOf(front).latencyMs + labServerOf(landing).latencyMs) * 0.8);
  }, 40_000);

  it('Auto takes the pair as one candidate, and the front blackholed is the chain’s failure: it fails over to another server', async () => {
    const subscription = (await snapshot()).subscriptions[0]!;
    // The front alone exits where the user does not want to be (whitelist mode): marked, as a user would.
    await engine.setExcluded({ subscriptionId: subscription.id, serverIds: [front.id] });
    // The others slower than the pair, so Auto's pick is the chain.
    for (const other of others) await lab.setFault(labServerOf(other).id, { latencyMs: 150 });
    await engine.testAll({});
    await waitFor('the slow servers measured slow', async () => {
      const snap = await snapshot();
      return others.every((o) => (snap.statuses[o.id]?.delayMs ?? 0) > 250);
    }, 30_000);
    await engine.setAuto({ subscriptionId: subscription.id });
    await waitFor('Auto on the chain', async () => (await snapshot()).connection.serverId === landing.id && (await exitIp()) === labServerOf(landing).exitIp, 15_000);

    await lab.setFault(labServerOf(front).id, { fault: 'blackhole' });
    const started = Date.now();
    let seen: string | null = null;
    while (Date.now() - started < 30_000) {
      seen = await exitIp(1500);
      if (seen && seen !== labServerOf(landing).exitIp) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = await snapshot();
    if (process.env.DEBUG_ENGINE) console.log(log.lines.filter((l) => / (AUTO|TUNNEL|ENGINE) /.test(l)).join('\n'));
    expect(others.map((o) => o.id)).toContain(after.connection.serverId);
    expect(seen).toBe(labServerOf(others.find((o) => o.id === after.connection.serverId)!).exitIp);
    expect(after.auto.timeline.some((e) => e.type === 'switch' && e.from === landing.id && e.reason === 'current-silent')).toBe(true);
    expect(Date.now() - started).toBeLessThan(20_000);
    // The chain's own probe, through its dead front, is its failure (it comes in after the switch, which did not wait for it).
    await waitFor('the chain failed', async () => (await snapshot()).statuses[landing.id]?.error, 15_000);
    await lab.setFault(labServerOf(front).id, { fault: 'none' });
  }, 90_000);
});
