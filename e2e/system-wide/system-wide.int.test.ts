/**
 * System-wide mode for real, as root, in network namespaces this test creates and removes: the
 * app (`npm run cli -- connect --mode system-wide`) runs in a "user machine" namespace; plain
 * programs there, which know nothing of proxies, reach a site in the "world" namespace through the
 * lab's server (the site sees the server's exit address), a LAN address stays direct, DNS goes
 * through the core, and nothing of the capture outlives a disconnect, a kill -9 of the app, or
 * stops traffic for long when the core is killed.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IP_INFO_SERVICES } from '../../shared/settings';
import { processesMentioning, waitUntil } from '../../app/tunnel/testing/processes';
import { ADDRESSES, captureTraces, namespacesAvailable } from './netns';
import { exited, LAB_PORT, LAN_URL, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from './world';

const exec = promisify(execFile);
let world: SystemWideWorld;

/** What a site answers a plain curl in the user namespace (its view of where the request came from). */
const curlFromUser = (url: string, timeoutS = 2) => world.inUser(['curl', '-s', '--noproxy', '*', '-m', String(timeoutS), url]);
const tryCurl = (url: string, timeoutS = 1) => curlFromUser(url, timeoutS).catch(() => null);
/** A Node program with no proxy in the user namespace. */
const nodeInUser = (script: string) => world.inUser([process.execPath, '-e', script], 10_000);
const askWorld = async (path: string) => (await exec('ip', ['netns', 'exec', world.topology.world, 'curl', '-s', '-m', '2', `${TARGET_URL}${path}`])).stdout;

/**
 * The monitor's other lookups (IP info, the transfer test) go to the world's site too, never to a
 * public service: the site answers every IP-info URL with the caller's address, which reads as no
 * answer, and serves /bytes/N.
 */
async function worldSettings(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, 'world-settings.json');
  const services = [...IP_INFO_SERVICES, 'cloudflare-trace'];
  const ipInfoUrls = Object.fromEntries(services.map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
  await writeFile(path, JSON.stringify({ monitor: { ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` } }));
  return path;
}

describe.skipIf(!namespacesAvailable())('system-wide mode in network namespaces (root)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld();
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL)) === ADDRESSES.user, 5000)).toBe(true);
  });

  afterAll(async () => {
    const names = [world?.topology.user, world?.topology.world];
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    for (const name of names) if (name) expect(stdout).not.toContain(name);
  });

  it('captures plain programs, keeps the LAN direct, sends DNS through the core, and removes everything on SIGTERM', async () => {
    const dataDir = join(world.dir, 'data-clean');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--probe']);
    await app.ready;
    expect(app.output()).toMatch(/system-wide: applied nftables TPROXY \(TCP, UDP\) with policy routing/);

    // TCP from curl and UDP from a bare socket: the site sees the lab server's exit address.
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.exit);
    const udp = await nodeInUser(
      `const s=require('dgram').createSocket('udp4');s.on('message',m=>{process.stdout.write(String(m));process.exit(0)});s.send('hi',5353,'${ADDRESSES.target}');setTimeout(()=>process.exit(3),4000)`,
    );
    expect(udp).toBe(ADDRESSES.exit);
    // The LAN stays direct.
    expect(await curlFromUser(LAN_URL)).toBe(ADDRESSES.userLan);
    // DNS: a lookup through the machine's resolver address arrives from the exit address.
    const answer = await nodeInUser(
      `const r=new (require('dns').promises.Resolver)();r.setServers(['${ADDRESSES.dns}']);r.resolve4('site.test').then(a=>process.stdout.write(a.join(',')),e=>{process.stdout.write('ERR '+e.code);})`,
    );
    expect(answer).toBe(ADDRESSES.target);
    expect(JSON.parse(await askWorld('dns-askers'))).toEqual([ADDRESSES.exit]);

    // A probe through the prober's core goes straight to the server, not into the capture and
    // through the tunnel: the server is never asked to reach itself.
    const proberFile = (await readdir(join(dataDir, 'runtime'))).find((name) => name.startsWith('prober-'));
    const prober = JSON.parse(await readFile(join(dataDir, 'runtime', proberFile!), 'utf8')) as { inbounds: { port: number }[] };
    const probed = await world.inUser(['curl', '-s', '-m', '3', '-x', `http://127.0.0.1:${prober.inbounds[0]!.port}`, `${TARGET_URL}generate_204`, '-o', '/dev/null', '-w', '%{http_code}']);
    expect(probed).toBe('204');
    const access = await readFile(world.accessLog, 'utf8');
    expect(access).toContain(`accepted tcp:${ADDRESSES.target}:8080`);
    expect(access).not.toContain(`tcp:${ADDRESSES.world}:${LAB_PORT}`);

    // The monitor's connectivity check leaves directly through the core's marked direct outbound:
    // the site sees the machine's own address, not the tunnel's exit.
    const tunnel = JSON.parse(await readFile(join(dataDir, 'runtime', 'tunnel.json'), 'utf8')) as { inbounds: { tag: string; port: number }[] };
    const directVia = `http://127.0.0.1:${tunnel.inbounds.find((i) => i.tag === 'direct-in')!.port}`;
    expect(await world.inUser(['curl', '-s', '-m', '3', '-x', directVia, TARGET_URL])).toBe(ADDRESSES.user);
    const checkModule = new URL('../../app/monitor/direct-check.ts', import.meta.url).href;
    const checked = await world.inUser([
      process.execPath,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { HttpDirectCheck } = await import('${checkModule}'); process.stdout.write(String(await new HttpDirectCheck(() => '${directVia}').reachable('${TARGET_URL}', 3000)));`,
    ]);
    expect(checked).toBe('true');

    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(app.output()).toMatch(/system-wide: capture removed/);
    expect(await captureTraces(world.topology.user)).toEqual([]);
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.user);
  });

  it('kill -9 of the core: traffic flows again within 5 s; kill -9 of the app: every rule and route is gone within 5 s', async () => {
    const dataDir = join(world.dir, 'data-crash');
    const app = startApp(world, dataDir, ['--mode', 'system-wide']);
    await app.ready;
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.exit);

    const [core] = processesMentioning(join(dataDir, 'runtime'));
    expect(core).toBeDefined();
    process.kill(core!, 'SIGKILL');
    const killedAt = Date.now();
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) !== null, 5000, 50)).toBe(true);
    console.log(JSON.stringify({ core_kill_to_traffic_ms: Date.now() - killedAt }));
    // Back through the restarted core, with capture re-applied.
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === ADDRESSES.exit, 5000, 100)).toBe(true);

    app.child.kill('SIGKILL');
    const appKilledAt = Date.now();
    expect(await waitUntil(async () => (await captureTraces(world.topology.user)).length === 0, 5000, 50)).toBe(true);
    console.log(JSON.stringify({ app_kill_to_rules_gone_ms: Date.now() - appKilledAt }));
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.user);
    expect(await waitUntil(() => processesMentioning(join(dataDir, 'runtime')).length === 0, 5000)).toBe(true);
  });

  it('with bypassLan off in the routing, the LAN is captured too and leaves through the server', async () => {
    const dataDir = join(world.dir, 'data-lan');
    await mkdir(dataDir, { recursive: true });
    const routingFile = join(dataDir, 'routing.json');
    await writeFile(routingFile, JSON.stringify({ routing: { bypassLan: false } }));
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--routing', routingFile]);
    await app.ready;
    expect(app.output()).toMatch(/LAN captured/);
    expect(await curlFromUser(LAN_URL)).toBe(ADDRESSES.exit);
    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(await captureTraces(world.topology.user)).toEqual([]);
  });

  it('with --auto: the whole engine captures the same way and SIGTERM removes it all', async () => {
    const dataDir = join(world.dir, 'data-auto');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--auto', '--data-dir', join(dataDir, 'profile'), '--test-url', `${TARGET_URL}generate_204`, '--settings', await worldSettings(dataDir)]);
    await app.ready;
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.exit);
    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(await captureTraces(world.topology.user)).toEqual([]);
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.user);
  });
  it('an Auto switch keeps the capture in place and only changes the server the traffic leaves through', async () => {
    const dataDir = join(world.dir, 'data-switch');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--auto', '--data-dir', join(dataDir, 'profile'), '--test-url', `${TARGET_URL}generate_204`, '--settings', await worldSettings(dataDir)], world.twoServerSubscription);
    await app.ready;
    const first = await curlFromUser(TARGET_URL);
    expect([ADDRESSES.exit, ADDRESSES.exit2]).toContain(first);
    const other = first === ADDRESSES.exit ? ADDRESSES.exit2 : ADDRESSES.exit;
    // The current server goes away; the user's traffic keeps asking until Auto has moved.
    world.labServers[first === ADDRESSES.exit ? 0 : 1]!.kill('SIGKILL');
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === other, 45_000, 200)).toBe(true);
    expect(app.output()).toMatch(/AUTO/);
    // The rules were never lifted or put back: no change of capture was reported, and it is in place.
    expect(app.output()).not.toMatch(/system-wide: (capture removed|applied again)/);
    expect(await captureTraces(world.topology.user)).toEqual(['nftables table steadfast_vpn', 'ip -4 rule fwmark 0x5346', 'ip -4 route table 5346', 'ip -6 rule fwmark 0x5346', 'ip -6 route table 5346']);
    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(await captureTraces(world.topology.user)).toEqual([]);
  });
});
