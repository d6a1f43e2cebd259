/**
 * Rule sets in the lab, through the real cores. The lab serves rule-set files this test builds (a
 * geosite.dat written with protobufjs, an .srs made by `sing-box rule-set compile`) from a host
 * that can reset the user's own connections, as a blocked provider's are.
 *
 * Xray carries the app's tunnel as the app runs it: names in the set go direct, names outside it
 * go through the server (the global preset); a corrupt file, an oversize one and a 404 leave the
 * copy in force with the reason; an update reached only through the tunnel succeeds and is put
 * in force. sing-box runs as the router of a config that uses the set's sing-box form (the app
 * runs sing-box only as a carrier behind Xray, so this is sing-box reading the set itself).
 * v2ray 4.34, the control core, carries the tunnel with the same geosite.dat through its own
 * `ext:` reference.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server as HttpServer } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../../e2e/lab';
import { GatedHttpServer } from '../../../e2e/lab/gated-http';
import { LabNetwork } from '../../../e2e/lab/network';
import type { Server } from '../../../shared/domain/server';
import { dnsSettingsSchema, routingSettingsSchema } from '../../../shared/routing';
import { ruleSetSchema } from '../../../shared/rule-sets';
import { type CoreProfile, detectCore, writeConfigFile } from '../../core';
import { singBoxOutbound } from '../../core/sing-box/outbound';
import { labCore } from '../../core/testing/cores';
import { memoryLogger } from '../../log/logger';
import { HttpSubscriptionFetcher } from '../../subscriptions/fetch';
import { TunnelFallbackFetcher } from '../../subscriptions/tunnel-fallback';
import { TunnelController } from '../../tunnel/controller';
import { CoreProcess } from '../../tunnel/core-process';
import { freePorts } from '../../tunnel/ports';
import { serversFromLinks } from '../../tunnel/testing/lab-servers';
import { RoutingService } from '../service';
import { RuleSetStore } from './store';
import { geositeDat } from './testing/geo-dat-writer';

/** The user's side of a "direct" connection: a listener that answers with its caller's address. */
const DIRECT_HOST = '127.0.0.200';
const MAX_BYTES = 64 * 1024;
const USER_ADDRESS = '127.0.0.1';

let lab: InProcessLab;
let server: Server;
let exitIp: string;
let xray: CoreProfile;
let singBox: CoreProfile;
let dataDir: string;
let listener: HttpServer;
let listenerPort: number;
let tunnel: TunnelController | null = null;
const stopAfter: (() => Promise<unknown>)[] = [];

/** The rule-set host: files by path; `blockedHere` resets connections from the user's own address. */
const served = new Map<string, Buffer>();
const host = { blockedHere: false, served: 0, resets: 0 };
let files: GatedHttpServer;
const fileUrl = (path: string) => `http://${files.address}${path}`;

const logger = memoryLogger('info');
const http = new HttpSubscriptionFetcher({ maxBytes: MAX_BYTES, timeoutMs: 15_000 });
const fetcher = new TunnelFallbackFetcher(http, () => (tunnel?.state().state === 'connected' ? (tunnel.state().httpProxy ?? null) : null), logger.logger);
let store: RuleSetStore;

beforeAll(async () => {
  lab = await startLab({ servers: 2, subscriptions: 1, latency: [5, 10] });
  const first = lab.info.servers[0]!;
  server = serversFromLinks([first.shareLink])[0]!;
  exitIp = first.exitIp;
  xray = await detectCore(labCore('xray'));
  singBox = await detectCore(labCore('sing-box'));
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-rule-sets-lab-'));
  files = new GatedHttpServer((req, res, source) => {
    if (host.blockedHere && source === USER_ADDRESS) {
      host.resets += 1;
      req.socket.resetAndDestroy();
      return;
    }
    const body = served.get(req.url ?? '');
    if (!body) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>');
    host.served += 1;
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  }, new LabNetwork());
  await files.start();
  listener = createServer((req, res) => res.end(`${req.socket.remoteAddress}\n`));
  await new Promise<void>((resolve) => listener.listen(0, DIRECT_HOST, resolve));
  listenerPort = (listener.address() as { port: number }).port;
  store = new RuleSetStore({
    dataDir,
    fetcher,
    cores: { router: { path: xray.path, family: 'xray' }, singBox: { path: singBox.path, family: 'sing-box' } },
    clock: { now: () => Date.now() },
    logger: logger.logger,
    maxBytes: MAX_BYTES,
  });
  await store.load();
}, 60_000);

afterEach(async () => {
  for (const stop of stopAfter.splice(0)) await stop();
});

afterAll(async () => {
  await tunnel?.disconnect();
  await files?.stop();
  await http.close();
  await new Promise((resolve) => listener?.close(resolve));
  await lab?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function get(proxy: string, url: string): Promise<string> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(8000) });
    return (await response.body.text()).split('\n')[0] ?? '';
  } catch (error) {
    throw new Error(`GET ${url} through ${proxy}: ${String(error)}`);
  } finally {
    await agent.destroy();
  }
}

/** Outside the sets: through the server, whose exit the listener sees, and a name only the server can resolve. */
async function expectOutsideThroughServer(proxy: string): Promise<void> {
  expect(await get(proxy, `http://${DIRECT_HOST}:${listenerPort}/`)).toBe(exitIp);
  const target = new URL(lab.info.target);
  const outside = await request(`http://www.${lab.info.zone}:${target.port}/generate_204`, { dispatcher: new ProxyAgent(proxy), signal: AbortSignal.timeout(8000) });
  expect(outside.statusCode).toBe(204);
  await outside.body.dump();
}

/** The routing service's state for these settings, with the store's copies in force. */
function stateFor(routing: unknown) {
  const service = RoutingService.fromData({ problem: 'no region data in this test' }, xray, store);
  return service.stateFor({ routing: routingSettingsSchema.parse(routing), dns: dnsSettingsSchema.parse({}) });
}
const routingFor = (routing: unknown) => stateFor(routing).routing;

describe('rule sets on Xray, as the app runs it', () => {
  const geo = () => ruleSetSchema.parse({ id: 'geo', name: 'Lab names', url: fileUrl('/geosite.dat'), format: 'geosite-dat', list: 'labset', outbound: 'direct', enabled: true });
  // Names the user visits: the set's resolve (hosts) to the listener, so "direct" is seen there as the user's own address.
  const routing = () => ({ bypassLan: false, hosts: { 'domain:rules.test': DIRECT_HOST }, ruleSets: [geo()] });

  it('names in the set go direct, names outside go through the server; bad updates keep the copy; a blocked host is reached through the tunnel', async () => {
    served.set('/geosite.dat', geositeDat({ LABSET: [{ type: 'domain', value: 'inset.rules.test' }], OTHER: [{ type: 'full', value: 'second.rules.test' }] }));
    const first = await store.update(geo());
    expect(first).toMatchObject({ copy: { entries: 1, viaTunnel: false }, lastError: null });

    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    tunnel = new TunnelController({ core: xray, runtimeDir: dataDir, logger: logger.logger, httpPort, socksPort, routing: routingFor(routing()), statsIntervalMs: 100 });
    const proxy = (await tunnel.connect(server)).httpProxy as string;
    expect(await get(proxy, `http://www.inset.rules.test:${listenerPort}/`)).toBe(USER_ADDRESS);
    await expectOutsideThroughServer(proxy);

    // Each failure leaves the copy in force, with the reason in words.
    const failures: [string, () => void, RegExp][] = [
      ['corrupt', () => served.set('/geosite.dat', Buffer.from('\x0a\xff\xff\xff\x0fnot a list')), /^the file is not a geosite.dat file/],
      ['oversize', () => served.set('/geosite.dat', Buffer.alloc(MAX_BYTES + 100, 0x0a)), /is larger than/],
      ['404', () => served.delete('/geosite.dat'), /answered HTTP 404 \(Not Found\)/],
    ];
    for (const [what, breakIt, reason] of failures) {
      breakIt();
      const status = await store.update(geo());
      expect(status.lastError, what).toMatch(reason);
      expect(status.copy, what).toEqual(first.copy);
      expect(store.routes([geo()])[0]?.revision, what).toBe(first.copy?.fetchedAt);
      expect(stateFor(routing()).view.ruleSets?.[0], what).toMatchObject({ copy: first.copy, lastError: expect.stringMatching(reason) });
    }
    expect(await get(proxy, `http://www.inset.rules.test:${listenerPort}/`)).toBe(USER_ADDRESS);

    // The host now resets the user's own connections: the update comes through the tunnel.
    served.set('/geosite.dat', geositeDat({ LABSET: [{ type: 'domain', value: 'inset.rules.test' }, { type: 'full', value: 'second.rules.test' }] }));
    host.blockedHere = true;
    const keyBefore = stateFor(routing()).key;
    const resetsBefore = host.resets;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const throughTunnel = await store.update(geo());
    expect(host.resets).toBe(resetsBefore + 1);
    expect(throughTunnel).toMatchObject({ copy: { entries: 2, viaTunnel: true }, lastError: null });
    expect(logger.lines.some((l) => /could not be reached directly \(reset\); trying through the tunnel/.test(l))).toBe(true);
    // Put in force (the core restarts on the same server to read the new copy): the new name goes direct too.
    expect(stateFor(routing()).key).not.toBe(keyBefore);
    expect(stateFor(routing()).view.ruleSets?.[0]).toMatchObject({ copy: { entries: 2, viaTunnel: true }, lastError: null });
    await tunnel.setRouting(routingFor(routing()));
    expect(await get(proxy, `http://second.rules.test:${listenerPort}/`)).toBe(USER_ADDRESS);
    host.blockedHere = false;
  }, 120_000);
});

describe('rule sets on v2ray 4.34, the control core', () => {
  it('reads the same geosite.dat through its ext: reference: names in the set direct, outside through the server', async () => {
    const v2ray = await detectCore(labCore('v2ray'));
    const v2rayDir = await mkdtemp(join(tmpdir(), 'steadfast-rule-sets-v2ray-'));
    stopAfter.push(() => rm(v2rayDir, { recursive: true, force: true }));
    // Checked by v2ray itself (`v2ray -test` on a config whose one rule uses the list), as the app does with the core that routes.
    const v2rayStore = new RuleSetStore({ dataDir: v2rayDir, fetcher, cores: { router: { path: v2ray.path, family: 'v2ray' }, singBox: null }, clock: { now: () => Date.now() }, logger: logger.logger, maxBytes: MAX_BYTES });
    await v2rayStore.load();
    const geo = ruleSetSchema.parse({ id: 'geo', name: 'Lab names', url: fileUrl('/geosite.dat'), format: 'geosite-dat', list: 'labset', outbound: 'direct', enabled: true });
    served.set('/geosite.dat', geositeDat({ LABSET: [{ type: 'domain', value: 'inset.rules.test' }], OTHER: [{ type: 'full', value: 'second.rules.test' }] }));
    expect(await v2rayStore.update(geo)).toMatchObject({ copy: { entries: 1 }, lastError: null });
    const service = RoutingService.fromData({ problem: 'no region data in this test' }, v2ray, v2rayStore);
    const routing = service.stateFor({ routing: routingSettingsSchema.parse({ bypassLan: false, hosts: { 'domain:rules.test': DIRECT_HOST }, ruleSets: [geo] }), dns: dnsSettingsSchema.parse({}) }).routing;
    expect(JSON.stringify(routing)).toContain('ext:geo.dat:labset');

    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const v2rayTunnel = new TunnelController({ core: v2ray, runtimeDir: v2rayDir, logger: logger.logger, httpPort, socksPort, routing, statsIntervalMs: 100 });
    stopAfter.unshift(() => v2rayTunnel.disconnect());
    const proxy = (await v2rayTunnel.connect(server)).httpProxy as string;
    expect(await get(proxy, `http://www.inset.rules.test:${listenerPort}/`)).toBe(USER_ADDRESS);
    await expectOutsideThroughServer(proxy);
  }, 120_000);
});

describe('rule sets on sing-box as the router', () => {
  it('an .srs made by sing-box rule-set compile, and a geosite list converted for it: names in the set direct, outside through the server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steadfast-srs-lab-'));
    stopAfter.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'set.json'), JSON.stringify({ version: 3, rules: [{ domain_suffix: ['srs.rules.test'] }] }));
    const compiled = spawnSync(singBox.path, ['rule-set', 'compile', join(dir, 'set.json'), '-o', join(dir, 'set.srs')]);
    expect(compiled.status, String(compiled.stderr)).toBe(0);
    served.set('/set.srs', await readFile(join(dir, 'set.srs')));
    const srs = ruleSetSchema.parse({ id: 'srs', name: 'Lab srs', url: fileUrl('/set.srs'), format: 'srs', outbound: 'direct', enabled: true });
    expect(await store.update(srs)).toMatchObject({ copy: { entries: 1 }, lastError: null });
    // The geosite set of the Xray test, in its sing-box form (converted and compiled by the app).
    const geo = ruleSetSchema.parse({ id: 'geo', name: 'Lab names', url: fileUrl('/geosite.dat'), format: 'geosite-dat', list: 'labset', outbound: 'direct', enabled: true });
    if (!store.status([geo])[0]?.copy) {
      served.set('/geosite.dat', geositeDat({ LABSET: [{ type: 'domain', value: 'inset.rules.test' }] }));
      await store.update(geo);
    }

    const forms = [store.singBoxRuleSet(srs), store.singBoxRuleSet(geo)];
    const [port] = (await freePorts(1)) as [number];
    const proxyOut = singBoxOutbound(server, singBox, 'proxy');
    const config = {
      log: { level: 'info' },
      // The names the user visits lead to the listener when dialled directly.
      dns: { servers: [{ type: 'hosts', tag: 'hosts', predefined: { 'www.srs.rules.test': DIRECT_HOST, 'www.inset.rules.test': DIRECT_HOST } }] },
      inbounds: [{ type: 'mixed', tag: 'in', listen: '127.0.0.1', listen_port: port }],
      outbounds: [{ type: 'direct', tag: 'direct' }, ...proxyOut.outbounds],
      route: {
        default_domain_resolver: 'hosts',
        rule_set: forms.map((form, i) => ({ tag: `set-${i}`, type: 'local', ...(form as { path: string; format: string }) })),
        rules: [{ rule_set: forms.map((_, i) => `set-${i}`), outbound: 'direct' }],
        final: 'proxy',
      },
    };
    const file = await writeConfigFile(dir, 'sing-box-router', config);
    const check = spawnSync(singBox.path, ['check', '-c', file]);
    expect(check.status, String(check.stderr)).toBe(0);
    const core = await CoreProcess.start({ core: singBox, configPath: file, readyPort: port, logger: logger.logger, logTag: 'TEST', label: 'sing-box router' });
    stopAfter.unshift(() => core.stop());
    const proxy = `http://127.0.0.1:${port}`;
    expect(await get(proxy, `http://www.srs.rules.test:${listenerPort}/`)).toBe(USER_ADDRESS);
    expect(await get(proxy, `http://www.inset.rules.test:${listenerPort}/`)).toBe(USER_ADDRESS);
    await expectOutsideThroughServer(proxy);
  }, 120_000);
});
