/**
 * Xray's Hysteria2 transport as the app writes it, seen at UDP listeners on loopback: a server
 * with a hopping port range is dialled on a port of its range, not only on the link's first port,
 * the core survives the dial, and anti-DPI options (which Xray cannot hop through) are left out
 * for such a server rather than breaking it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatagramLog, isQuicInitial } from '../../e2e/lab/wire-watch';
import type { Server } from '../../shared/domain/server';
import { parseLinkList } from '../subscriptions/parse/links';
import { waitFor } from '../testing/wait';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { type CoreProfile, detectCore, writeConfigFile } from './index';
import { coreRunArgs } from './run-core';
import { labCore } from './testing/cores';
import { tunnelConfig } from './tunnel-config';

let core: CoreProfile;
let dir: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hysteria2-xray-'));
  core = await detectCore(labCore('xray'));
});
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await rm(dir, { recursive: true, force: true });
});

describe('Xray Hysteria2 port hopping', () => {
  it.each([
    { options: 'no anti-DPI options', antiDpi: null },
    // Xray hops only from the outermost dialer: through the anti-DPI outbound every dial failed.
    { options: 'UDP noise on (left out for this server)', antiDpi: { fragment: null, noise: { type: 'rand', packet: '10-20', delay: '10-16' } } as const },
  ])('dials a port of the hopping range, with $options', async ({ antiDpi }) => {
    const first = await new DatagramLog().start();
    const hop = await new DatagramLog().start();
    stops.push(() => first.stop(), () => hop.stop());
    // The link's first port answers nothing; its range holds only the second listener's port.
    const link = `hysteria2://hy-pw@127.0.0.1:${first.port}?sni=hy.lab.test&mport=${hop.port}-${hop.port}&pcs=${'ab'.repeat(32)}#hop`;
    const parsed = parseLinkList(link);
    const server = { ...parsed.servers[0]!, id: 'hop', subscriptionId: 's' } as Server;
    expect(server.portHopping).toBeDefined();
    const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const config = tunnelConfig({ server, core, listen: '127.0.0.1', httpPort, socksPort, apiPort, antiDpi });
    const tunnel = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, `hop-${antiDpi ? 'noise' : 'plain'}`, config)));
    stops.push(tunnel.stop);
    await waitForPort(httpPort);
    const request = curlThrough(`http://127.0.0.1:${httpPort}`, 'http://127.0.0.1:9/', 2);
    await waitFor('a QUIC Initial at either listener', () => [...first.datagrams, ...hop.datagrams].some((d) => isQuicInitial(d.data)), 5000, 20);
    // Still running: a hop interval it cannot use makes Xray panic on the first dial.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tunnel.child.exitCode, tunnel.output()).toBeNull();
    await tunnel.stop();
    await request;
    expect(hop.datagrams.some((d) => isQuicInitial(d.data)), tunnel.output()).toBe(true);
    expect(first.datagrams).toEqual([]);
    // Nothing of the config was set aside as moved elsewhere.
    expect(tunnel.output()).not.toMatch(/move to finalmask/);
  });
});
