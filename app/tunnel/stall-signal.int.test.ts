/**
 * Auto's stall rule ("sending without receiving") reads the tunnel's traffic samples. On each
 * client core, a blackholed current server must show as bytes sent and none received: Xray 26
 * leaves its proxy outbounds' uplink counter at zero, so the sample's sending comes from the user
 * inbounds there (policy/traffic-delta.ts), and without it a dead server looked idle on Xray.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrafficSample } from '../../shared/domain/connection';
import { detectCore } from '../core';
import { labCore } from '../core/testing/cores';
import { Logger } from '../log/logger';
import { startLab, type Lab } from '../../e2e/lab';
import { TunnelController } from './controller';
import { freePorts } from './ports';
import { serversFromLinks } from './testing/lab-servers';

let lab: Lab;
let runtimeDir: string;
beforeAll(async () => {
  lab = await startLab({ servers: 4, latency: [20, 20] });
  runtimeDir = await mkdtemp(join(tmpdir(), 'stall-signal-'));
}, 60_000);
afterAll(async () => {
  await lab?.stop();
  await rm(runtimeDir, { recursive: true, force: true });
});

describe.each(['xray', 'v2ray'] as const)('%s: a blackholed server in the traffic samples', (coreName) => {
  it.each([0, 1, 2, 3])('lab server %i: requests sent, nothing received', async (index) => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const tunnel = new TunnelController({ core: await detectCore(labCore(coreName)), runtimeDir, logger: new Logger({ level: 'error' }), httpPort, socksPort });
    const agent = new ProxyAgent(`http://127.0.0.1:${httpPort}`);
    const get = () =>
      request(lab.info.target, { dispatcher: agent, signal: AbortSignal.timeout(2000) }).then(
        (r) => r.body.dump().then(() => r.statusCode),
        () => null,
      );
    const labServer = lab.info.servers[index]!;
    try {
      await tunnel.connect(serversFromLinks([labServer.shareLink])[0]!);
      expect(await get()).toBe(204);
      await lab.setFault(labServer.id, { fault: 'blackhole' });
      // The answer before the fault can reach the counters a sample late: wait it out.
      await new Promise((r) => setTimeout(r, 700));
      const samples: TrafficSample[] = [];
      tunnel.on('traffic', (s) => samples.push(s));
      const requests = Array.from({ length: 4 }, (_, i) => new Promise((r) => setTimeout(r, i * 250)).then(get));
      await Promise.all(requests);
      const sent = samples.reduce((sum, s) => sum + s.upBytes, 0);
      const received = samples.reduce((sum, s) => sum + s.downBytes, 0);
      expect(sent).toBeGreaterThan(100);
      expect(received).toBe(0);
    } finally {
      await lab.setFault(labServer.id, { fault: 'none' });
      await agent.destroy();
      await tunnel.disconnect();
    }
  });
});
