/**
 * A server group whose pick only sing-box runs, for real: Xray as the main core on a plain
 * (SOCKS5) server, the group's pick a TUIC v5 or AnyTLS server hosted by sing-box on loopback
 * (self-signed, started here), and two loopback HTTP targets, one the group's routing sends
 * through the group. Each server leaves from its own loopback address (127.0.0.2–.5), so a
 * target's `/whoami` says which server carried the request. The group's traffic goes client →
 * Xray → its `group:G` SOCKS5 hop → the group's own sing-box carrier → the pick → the target.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, type CoreRouting, detectCore, groupTag } from '../core';
import { labCore } from '../core/testing/cores';
import { memoryLogger } from '../log/logger';
import { type DialFailureEvent, type GroupDialFailureEvent, type RestartedEvent, TunnelController } from './controller';
import { CoreProcess } from './core-process';
import { freePorts } from './ports';
import { isRunning, processesOf, waitUntil } from './testing/processes';
import { selfSignedServerTls } from './testing/sing-box-tls';

const UUID = '2f6b0f0e-8d2c-4a51-9c35-7f0f3b1d8a11';
const BODY = randomBytes(1024 * 1024);
/** The loopback address each server's traffic leaves from. */
const EGRESS = { main: '127.0.0.2', plain: '127.0.0.3', tuic: '127.0.0.4', anytls: '127.0.0.5' } as const;

let dir: string;
let xray: CoreProfile;
let singBox: CoreProfile;
let targets: HttpServer[];
let mainTarget: number;
let groupTarget: number;
let serverCore: CoreProcess;
const ports = { main: 0, plain: 0, tuic: 0, anytls: 0, dead: 0 };
let tunnel: TunnelController | null = null;

const base = (name: string, port: number) => ({ id: name, subscriptionId: 'carried', name, address: '127.0.0.1', port, transport: { network: 'tcp' as const } });
const insecure = { type: 'tls' as const, sni: 'tuic.test', allowInsecure: true };
const socks = (name: string, port: number): Server => ({ ...base(name, port), protocol: 'socks', security: { type: 'none' } });
const mainServer = () => socks('plain main', ports.main);
const plainPick = () => socks('plain pick', ports.plain);
const tuic = (): Server => ({ ...base('TUIC pick', ports.tuic), protocol: 'tuic', uuid: UUID, password: 'tuic-pass', congestionControl: 'bbr', security: { ...insecure, alpn: ['h3'] } });
const anytls = (port = ports.anytls, name = 'AnyTLS pick'): Server => ({ ...base(name, port), protocol: 'anytls', password: 'anytls-pass', security: { ...insecure, fingerprint: 'chrome' } });

function serve(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/whoami') return void res.end(req.socket.remoteAddress);
  res.setHeader('content-length', BODY.length);
  res.end(BODY);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steadfast-cgroups-'));
  [xray, singBox] = await Promise.all([detectCore(labCore('xray')), detectCore(labCore('sing-box'))]);
  targets = [createServer(serve), createServer(serve)];
  await Promise.all(targets.map((t) => new Promise<void>((resolve) => t.listen(0, '127.0.0.1', resolve))));
  [mainTarget, groupTarget] = targets.map((t) => (t.address() as { port: number }).port) as [number, number];
  [ports.main, ports.plain, ports.tuic, ports.anytls, ports.dead] = (await freePorts(5)) as [number, number, number, number, number];
  const tls = await selfSignedServerTls(dir, 'tuic.test');
  const serverConfig = {
    log: { level: 'warn' },
    inbounds: [
      { type: 'socks', tag: 'main', listen: '127.0.0.1', listen_port: ports.main },
      { type: 'socks', tag: 'plain', listen: '127.0.0.1', listen_port: ports.plain },
      { type: 'tuic', tag: 'tuic', listen: '127.0.0.1', listen_port: ports.tuic, users: [{ name: 'u', uuid: UUID, password: 'tuic-pass' }], congestion_control: 'bbr', tls: { ...tls, alpn: ['h3'] } },
      { type: 'anytls', tag: 'anytls', listen: '127.0.0.1', listen_port: ports.anytls, users: [{ name: 'u', password: 'anytls-pass' }], tls },
    ],
    outbounds: Object.entries(EGRESS).map(([tag, address]) => ({ type: 'direct', tag, inet4_bind_address: address })),
    route: { rules: Object.keys(EGRESS).map((tag) => ({ inbound: [tag], action: 'route', outbound: tag })) },
  };
  await writeFile(join(dir, 'servers.json'), JSON.stringify(serverConfig), { mode: 0o600 });
  serverCore = await CoreProcess.start({ core: singBox, configPath: join(dir, 'servers.json'), readyPort: ports.anytls, logger: memoryLogger().logger, logTag: 'LAB', label: 'sing-box servers' });
});

afterEach(async () => {
  await tunnel?.disconnect();
  tunnel = null;
});

afterAll(async () => {
  await serverCore?.stop();
  await Promise.all((targets ?? []).map((t) => new Promise((resolve) => t.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

/** The group's traffic is what goes to the group's target (by port). */
const routing = (): CoreRouting => ({
  domainStrategy: 'AsIs',
  routes: [{ outbound: groupTag('G'), port: String(groupTarget) }],
  hosts: {},
  dns: { remote: '127.0.0.1:53', domestic: 'system', directDomains: [] },
});

async function newTunnel(pick: Server) {
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const log = memoryLogger('debug');
  tunnel = new TunnelController({ core: xray, carriers: [singBox], runtimeDir: dir, logger: log.logger, httpPort, socksPort, routing: routing(), groups: [{ name: 'G', pick: { server: pick } }] });
  return { tunnel, log };
}

async function get(proxy: string, port: number, path: string, timeoutMs = 10_000): Promise<{ status: number; body: Buffer }> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(`http://127.0.0.1:${port}${path}`, { dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
  } finally {
    await agent.destroy();
  }
}

/** Which server carried a request to `port` (its egress address), or null when it failed. */
async function carriedBy(proxy: string, port: number): Promise<string | null> {
  const answer = await get(proxy, port, '/whoami', 3000).catch(() => null);
  return answer && answer.status === 200 ? answer.body.toString() : null;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const groupCarriers = () => processesOf(singBox.path, join(dir, 'group-carrier-'));
const anyCarriers = () => processesOf(singBox.path, join(dir, '')).filter((pid) => pid !== serverCore.corePid());
const mainCores = () => processesOf(xray.path, 'tunnel.json');

describe('a group whose pick only sing-box runs, carried beside Xray', () => {
  it.each([
    ['TUIC v5', tuic, EGRESS.tuic],
    ['AnyTLS', () => anytls(), EGRESS.anytls],
  ])('%s: the group’s traffic goes through it byte-exact, the main connection through its own server; disconnect leaves no sing-box', async (_name, pick, egress) => {
    const { tunnel } = await newTunnel(pick());
    const state = await tunnel.connect(mainServer());
    expect(state.state).toBe('connected');
    expect(groupCarriers()).toHaveLength(1);
    const whole = await get(state.httpProxy!, groupTarget, '/bytes');
    expect(whole.status).toBe(200);
    expect(sha(whole.body)).toBe(sha(BODY));
    expect(await carriedBy(state.httpProxy!, groupTarget)).toBe(egress);
    expect(await carriedBy(state.socksProxy!, groupTarget)).toBe(egress);
    expect(await carriedBy(state.httpProxy!, mainTarget)).toBe(EGRESS.main);
    expect(sha((await get(state.httpProxy!, mainTarget, '/bytes')).body)).toBe(sha(BODY));
    const carrier = groupCarriers()[0]!;
    await tunnel.disconnect();
    expect(await waitUntil(() => !isRunning(carrier) && anyCarriers().length === 0, 3000)).toBe(true);
  });

  it('a switch between a plain and a carried pick is swapped live: the same Xray process, the old carrier stopped, the main connection untouched', async () => {
    const { tunnel } = await newTunnel(plainPick());
    const proxy = (await tunnel.connect(mainServer())).httpProxy!;
    expect(await carriedBy(proxy, groupTarget)).toBe(EGRESS.plain);
    const core = mainCores();
    expect(core).toHaveLength(1);
    expect(groupCarriers()).toHaveLength(0);

    expect(await tunnel.switchGroup('G', { server: anytls() })).toBe('live');
    expect(await carriedBy(proxy, groupTarget)).toBe(EGRESS.anytls);
    expect(sha((await get(proxy, groupTarget, '/bytes')).body)).toBe(sha(BODY));
    const first = groupCarriers();
    expect(first).toHaveLength(1);

    // Carried to carried: the next carrier is up before the swap, the old one gone after it.
    expect(await tunnel.switchGroup('G', { server: tuic() })).toBe('live');
    expect(await carriedBy(proxy, groupTarget)).toBe(EGRESS.tuic);
    expect(isRunning(first[0]!)).toBe(false);
    expect(groupCarriers()).toHaveLength(1);

    expect(await tunnel.switchGroup('G', { server: plainPick() })).toBe('live');
    expect(await carriedBy(proxy, groupTarget)).toBe(EGRESS.plain);
    expect(groupCarriers()).toHaveLength(0);

    expect(await carriedBy(proxy, mainTarget)).toBe(EGRESS.main);
    expect(mainCores()).toEqual(core);
    expect(tunnel.state()).toMatchObject({ state: 'connected', serverId: 'plain main' });
  });

  it('a killed group carrier is restarted on its own: the group comes back, the main connection keeps its core and works throughout', async () => {
    const { tunnel } = await newTunnel(tuic());
    const restarted: RestartedEvent[] = [];
    tunnel.on('restarted', (r) => restarted.push(r));
    const proxy = (await tunnel.connect(mainServer())).httpProxy!;
    expect(await carriedBy(proxy, groupTarget)).toBe(EGRESS.tuic);
    const core = mainCores();
    const [killed] = groupCarriers() as [number];
    process.kill(killed, 'SIGKILL');
    expect(await carriedBy(proxy, mainTarget)).toBe(EGRESS.main);
    expect(await waitUntil(async () => (await carriedBy(proxy, groupTarget)) === EGRESS.tuic, 10_000, 100)).toBe(true);
    expect(groupCarriers()).toHaveLength(1);
    expect(groupCarriers()[0]).not.toBe(killed);
    expect(mainCores()).toEqual(core);
    expect(restarted).toHaveLength(0);
    expect(tunnel.state().state).toBe('connected');
    await tunnel.disconnect();
    expect(await waitUntil(() => anyCarriers().length === 0, 3000)).toBe(true);
  });

  it('a dead carried pick: the group’s request fails at once, the failure is the group pick’s (refused), not the main server’s', async () => {
    const { tunnel } = await newTunnel(anytls(ports.dead, 'AnyTLS gone'));
    const group: GroupDialFailureEvent[] = [];
    const main: DialFailureEvent[] = [];
    tunnel.on('groupDialFailure', (f) => group.push(f));
    tunnel.on('dialFailure', (f) => main.push(f));
    const proxy = (await tunnel.connect(mainServer())).httpProxy!;
    const began = Date.now();
    expect(await carriedBy(proxy, groupTarget)).toBeNull();
    expect(Date.now() - began).toBeLessThan(3000);
    expect(await waitUntil(() => group.length > 0, 3000)).toBe(true);
    expect(group[0]).toMatchObject({ group: 'G', serverId: 'AnyTLS gone', kind: 'refused' });
    expect(await carriedBy(proxy, mainTarget)).toBe(EGRESS.main);
    expect(main).toEqual([]);
    // Told once, by the carrier, with the server's address: Xray's echo of it on its SOCKS5 hop ("server rejects request") is not a second failure.
    await new Promise((r) => setTimeout(r, 300));
    expect(group.map((f) => f.kind)).toEqual(['refused']);
    expect(group[0]!.detail).toContain(`127.0.0.1:${ports.dead}`);
  });
});
