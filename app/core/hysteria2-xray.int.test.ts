/**
 * Xray's Hysteria2 transport as the app writes it, seen at UDP listeners on loopback: a server
 * with a hopping port range is dialled on a port of its range, not only on the link's first port,
 * the core survives the dial, and anti-DPI options (which Xray cannot hop through) are left out
 * for such a server rather than breaking it. Against a real Hysteria2 server (Xray-hosted): the
 * certificate pin is checked, and the anti-DPI options leave the connection working.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatagramLog, isQuicInitial } from '../../e2e/lab/wire-watch';
import type { Server } from '../../shared/domain/server';
import { parseLinkList } from '../subscriptions/parse/links';
import { waitFor } from '../testing/wait';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { type CoreProfile, detectCore, writeConfigFile } from './index';
import { coreRunArgs } from './run-core';
import { labCore } from './testing/cores';
import { type Certificate, selfSigned } from './testing/tls-front';
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
    expect(server).toMatchObject({ protocol: 'hysteria2', portHopping: `${hop.port}-${hop.port}` });
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

describe('Xray Hysteria2 against a real Hysteria2 server', () => {
  let cert: Certificate;
  let other: Certificate;
  let serverPort: number;
  let targetUrl: string;

  beforeAll(async () => {
    cert = selfSigned('hy.lab.test');
    other = selfSigned('other.lab.test');
    const target: HttpServer = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise((resolve) => target.close(() => resolve())));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/generate_204`;
    // A UDP port nothing else holds: a TCP port the OS just handed out is as good as any.
    [serverPort] = (await freePorts(1)) as [number];
    const server = {
      log: { loglevel: 'warning', access: 'none' },
      inbounds: [
        {
          protocol: 'hysteria',
          listen: '127.0.0.1',
          port: serverPort,
          settings: { version: 2, clients: [{ auth: 'hy-pw' }] },
          streamSettings: {
            network: 'hysteria',
            security: 'tls',
            tlsSettings: { alpn: ['h3'], certificates: [{ certificate: cert.cert.trim().split('\n'), key: cert.key.trim().split('\n') }] },
            hysteriaSettings: { version: 2 },
          },
        },
      ],
      outbounds: [{ protocol: 'freedom', settings: {} }],
    };
    const running = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, 'hysteria-server', server)));
    stops.push(running.stop);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.child.exitCode, running.output()).toBeNull();
  });

  async function through(query: string, antiDpi: Parameters<typeof tunnelConfig>[0]['antiDpi'] = null): Promise<string> {
    const link = `hysteria2://hy-pw@127.0.0.1:${serverPort}?sni=hy.lab.test&${query}#hy`;
    const server = { ...parseLinkList(link).servers[0]!, id: 'hy', subscriptionId: 's' } as Server;
    const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const config = tunnelConfig({ server, core, listen: '127.0.0.1', httpPort, socksPort, apiPort, antiDpi });
    const tunnel = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, `hy-client-${httpPort}`, config)));
    stops.push(tunnel.stop);
    await waitForPort(httpPort);
    const outcome = await curlThrough(`http://127.0.0.1:${httpPort}`, targetUrl, 4);
    await tunnel.stop();
    return outcome;
  }

  it('connects with the pin of its certificate and refuses another pin', async () => {
    expect(await through(`pcs=${cert.sha256}`)).toBe('204');
    expect(await through(`pcs=${other.sha256}`)).not.toBe('204');
  });

  it('still connects with UDP noise before the handshake and the ClientHello fragment configured', async () => {
    const antiDpi = { fragment: { packets: 'tlshello', length: '100-200', interval: '10-20' }, noise: { type: 'rand', packet: '50-60', delay: '10-16' } } as const;
    expect(await through(`pcs=${cert.sha256}`, antiDpi)).toBe('204');
  });
});
