/**
 * mKCP as users have it: servers set up years ago (v2ray 4.34 here, writing the header and seed the
 * old way), reached through the app's own tunnel config by Xray 26.3.27, which refuses those old
 * fields and takes FinalMask masks instead, and by v2ray 4.34 as the control. A mask in the wrong
 * order or with the wrong name makes packets the server drops, so each header and seed case is a
 * real download.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { parseLinkList } from '../subscriptions/parse/links';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { type CoreProfile, detectCore, writeConfigFile } from './index';
import { coreRunArgs } from './run-core';
import { labCore } from './testing/cores';
import { tunnelConfig } from './tunnel-config';

const UUID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const CASES = [
  { name: 'wechat-video header with a seed', header: 'wechat-video', seed: 'kcp-seed-1' },
  { name: 'no header, no seed (mKCP’s original obfuscation)', header: 'none', seed: null },
  { name: 'srtp header, no seed', header: 'srtp', seed: null },
  { name: 'dtls header with a seed', header: 'dtls', seed: 'kcp-seed-2' },
] as const;

let dir: string;
let targetUrl: string;
const ports = new Map<string, number>();
const stops: (() => Promise<void>)[] = [];
const cores = new Map<string, CoreProfile>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kcp-int-'));
  for (const name of ['xray', 'v2ray'] as const) cores.set(name, await detectCore(labCore(name)));
  const target: HttpServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('through mKCP\n'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => target.close(() => resolve())));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
  // mKCP listens on UDP; TCP ports the OS just handed out are free for UDP as well here.
  const udpPorts = await freePorts(CASES.length);
  CASES.forEach((c, i) => ports.set(c.name, udpPorts[i] as number));
  const server = {
    log: { loglevel: 'warning' },
    inbounds: CASES.map((c) => ({
      listen: '127.0.0.1',
      port: ports.get(c.name),
      protocol: 'vmess',
      settings: { clients: [{ id: UUID, alterId: 0 }] },
      streamSettings: { network: 'kcp', kcpSettings: { header: { type: c.header }, ...(c.seed ? { seed: c.seed } : {}) } },
    })),
    outbounds: [{ protocol: 'freedom', settings: {} }],
  };
  const v2ray = cores.get('v2ray') as CoreProfile;
  const running = startCore(v2ray.path, coreRunArgs(v2ray, await writeConfigFile(dir, 'kcp-servers', server)));
  stops.push(running.stop);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(running.child.exitCode, running.output()).toBeNull();
}, 30_000);

afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await rm(dir, { recursive: true, force: true });
});

/** v2rayN's VMess link for one mKCP case, read by the app's parser. */
function serverFor(c: (typeof CASES)[number]): Server {
  const body = { v: '2', ps: c.name, add: '127.0.0.1', port: String(ports.get(c.name)), id: UUID, aid: '0', scy: 'auto', net: 'kcp', type: c.header, path: c.seed ?? '', host: '', tls: '' };
  const parsed = parseLinkList(`vmess://${Buffer.from(JSON.stringify(body)).toString('base64')}`);
  expect(parsed.rejected).toEqual([]);
  return { ...parsed.servers[0]!, id: `kcp-${ports.get(c.name)}`, subscriptionId: 's' } as Server;
}

describe('mKCP servers written the old way, through the app’s tunnel', () => {
  it.each(CASES.flatMap((c) => (['xray', 'v2ray'] as const).map((core) => ({ ...c, core }))))('$core: $name', async ({ core: name, ...c }) => {
    const core = cores.get(name) as CoreProfile;
    const server = serverFor(c);
    expect(server.transport).toMatchObject({ network: 'kcp', ...(c.header === 'none' ? {} : { headerType: c.header }), ...(c.seed ? { seed: c.seed } : {}) });
    const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const config = tunnelConfig({ server, core, listen: '127.0.0.1', httpPort, socksPort, apiPort });
    const tunnel = startCore(core.path, coreRunArgs(core, await writeConfigFile(dir, `kcp-${name}-${httpPort}`, config)));
    stops.push(tunnel.stop);
    await waitForPort(httpPort);
    expect(await curlThrough(`http://127.0.0.1:${httpPort}`, targetUrl, 6), tunnel.output()).toBe('200');
    await tunnel.stop();
  });

  it('Xray 26.3.27 reads the masks (its config test refuses an unknown one) and carries mKCP', () => {
    const xray = cores.get('xray') as CoreProfile;
    expect(xray.capabilities.features.has('kcp-finalmask')).toBe(true);
    expect(xray.capabilities.networks.has('kcp')).toBe(true);
  });
});
