/**
 * The outside view of servers only sing-box carries, against the lab's real servers: an AnyTLS
 * (TCP) and a TUIC v5 (QUIC) server hosted by sing-box, dialled through a v2ray-world vantage by
 * the app's CarrierVantages with Xray as the main core and sing-box beside it, as the engine wires
 * it. Blocked for the user's own address, each is still reached from the vantage's exit; refusing
 * everyone, it is not, and that is a vote, not an inconclusive probe.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore } from '../core';
import { labCore } from '../core/testing/cores';
import { memoryLogger } from '../log/logger';
import { assignIds } from '../subscriptions/identity';
import { parseSubscription } from '../subscriptions/parse';
import { CoreProber } from '../tunnel/prober';
import { CarrierVantages } from './carrier-vantages';

let lab: InProcessLab;
let servers: Server[];
let xray: CoreProfile;
let singBox: CoreProfile;
let runtimeDir: string;

beforeAll(async () => {
  lab = await startLab({ servers: 4, subscriptions: 1, modern: true, latency: [10, 20] });
  const parsed = parseSubscription(lab.info.servers.map((s) => s.shareLink).join('\n'));
  expect(parsed.rejected).toEqual([]);
  servers = assignIds('lab', [], parsed.servers);
  xray = await detectCore(labCore('xray'));
  singBox = await detectCore(labCore('sing-box'));
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-carrier-vantages-'));
}, 60_000);

afterAll(async () => {
  await lab?.stop();
  if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
});

const byKind = (kind: string) => servers[lab.info.servers.findIndex((s) => s.kind === kind)] as Server;
const labIdOf = (server: Server) => lab.info.servers[servers.indexOf(server)]?.id as string;

describe('CarrierVantages: servers only sing-box carries, dialled through another server', () => {
  it.each(['anytls', 'tuic-v5'])('%s: reached from the vantage while blocked for the user, not while it refuses everyone', async (kind) => {
    const target = byKind(kind);
    const vantage = servers[0] as Server;
    expect(vantage.protocol).toBe('vmess');
    const { logger } = memoryLogger('info');
    const vantages = new CarrierVantages({ core: xray, carriers: [singBox], runtimeDir, logger, url: () => lab.info.target, idleMs: 500 });
    // From here, as the monitor probes it: with sing-box, straight from the user's address.
    const here = new CoreProber({ core: singBox, runtimeDir, logger, fileName: `here-${kind}` });
    here.setServers([target]);
    await here.settled();
    const fromHere = () => here.probe(target.id, { url: lab.info.target, timeoutMs: 3000 });
    // The main core alone cannot dial it at all: before, its reachability could only be "unknown".
    expect(new CarrierVantages({ core: xray, carriers: [], runtimeDir, logger, url: () => lab.info.target }).unsupported(vantage, target)).toMatch(/needs sing-box/);
    expect(vantages.unsupported(vantage, target)).toBeNull();
    try {
      expect(await fromHere()).toMatchObject({ ok: true });
      expect(await vantages.reachThrough(vantage, target, 5000)).toMatchObject({ reached: true });
      await lab.setFault(labIdOf(target), { fault: 'blocked-here' });
      expect(await fromHere()).toMatchObject({ ok: false });
      expect(await vantages.reachThrough(vantage, target, 5000)).toMatchObject({ reached: true });
      await lab.setFault(labIdOf(target), { fault: 'refuse' });
      const refused = await vantages.reachThrough(vantage, target, 5000);
      expect(refused).toMatchObject({ reached: false });
      expect(refused.inconclusive).toBeUndefined();
    } finally {
      await lab.setFault(labIdOf(target), { fault: 'none' });
      await vantages.stop();
      await here.close();
    }
  }, 60_000);
});
