/**
 * System-wide mode through sing-box's TUN on Linux, for real, as root, in network namespaces this
 * test creates and removes (the world of system-wide.int.test.ts): the app (`npm run cli --
 * connect --mode system-wide --capture tun`) runs in the "user machine" namespace, where sing-box
 * 1.14 brings up its device with auto_route in front of the core's SOCKS5 inbound. Plain programs reach the world's site through the lab's server, the LAN stays direct,
 * DNS is answered through the server, an Auto switch leaves the device as it is, and a kill -9 of
 * the app or of sing-box leaves no device, rule, route or nftables table behind.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IP_INFO_SERVICES } from '../../shared/settings';
import { labCore } from '../../app/core/testing/cores';
import { LINUX_TUN } from '../../app/system-wide/tun/policy/sing-box-tun';
import { isRunning, processesMentioning, waitUntil } from '../../app/tunnel/testing/processes';
import { ADDRESSES, deviceIndex, namespacesAvailable, tunTraces } from './netns';
import { exited, LAB_PORT, LAN_URL, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from './world';

const exec = promisify(execFile);
let world: SystemWideWorld;

const TUN = { device: LINUX_TUN.device, table: LINUX_TUN.table, priorities: Array.from({ length: LINUX_TUN.ruleSpan }, (_, i) => LINUX_TUN.ruleIndex + i) };
const traces = () => tunTraces(world.topology.user, TUN);
const curlFromUser = (url: string, timeoutS = 2) => world.inUser(['curl', '-s', '--noproxy', '*', '-m', String(timeoutS), url]);
const tryCurl = (url: string, timeoutS = 1) => curlFromUser(url, timeoutS).catch(() => null);
const nodeInUser = (script: string) => world.inUser([process.execPath, '-e', script], 10_000);
const askWorld = async (path: string) => (await exec('ip', ['netns', 'exec', world.topology.world, 'curl', '-s', '-m', '2', `${TARGET_URL}${path}`])).stdout;
const pidIn = async (file: string) => Number((await readFile(file, 'utf8')).trim());

/** The routing file of these runs: the LAN direct, and the remote resolver the world's DNS server. */
async function routingFile(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, 'routing.json');
  await writeFile(path, JSON.stringify({ routing: { bypassLan: true }, dns: { remote: ADDRESSES.dns } }));
  return path;
}

/** The monitor's lookups go to the world's site, never to a public service (see system-wide.int.test.ts). */
async function worldSettings(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, 'world-settings.json');
  const services = [...IP_INFO_SERVICES, 'cloudflare-trace'];
  const ipInfoUrls = Object.fromEntries(services.map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
  await writeFile(path, JSON.stringify({ monitor: { ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` }, dns: { remote: ADDRESSES.dns } }));
  return path;
}

const everyTrace = ['device steadfast0', 'ip -4 rules', 'ip -6 rules', `ip -4 route table ${LINUX_TUN.table}`];

describe.skipIf(!namespacesAvailable())('system-wide mode through sing-box’s TUN in network namespaces (root)', () => {
  beforeAll(async () => {
    // The bundled sing-box is the TUN engine the app finds; without it this fails saying how to build it.
    labCore('sing-box');
    world = await startSystemWideWorld();
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL)) === ADDRESSES.user, 5000)).toBe(true);
  });

  afterAll(async () => {
    const names = [world?.topology.user, world?.topology.world];
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    for (const name of names) if (name) expect(stdout).not.toContain(name);
  });

  it('captures plain programs into the core through the device, keeps the LAN direct, answers DNS through the server, and removes everything on SIGTERM', async () => {
    const dataDir = join(world.dir, 'tun-clean');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--capture', 'tun', '--routing', await routingFile(dataDir)]);
    await app.ready;
    expect(app.output()).toMatch(/system-wide: applied sing-box 1\.\d+\.\d+ TUN steadfast0: every program's traffic/);
    for (const trace of everyTrace) expect((await traces()).join('\n')).toContain(trace);
    // The core runs as root here, so it marks its sockets: the kernel keeps them out of the device by
    // our rule ahead of sing-box's, and sing-box has no process rule (with one it searched /proc for
    // every connection: +41 ms and more per request in the bench).
    const { stdout: rules } = await exec('ip', ['-n', world.topology.user, '-4', 'rule', 'show']);
    expect(rules).toMatch(new RegExp(`^${LINUX_TUN.ruleIndex}:\\s+from all fwmark 0x5347 lookup main`, 'm'));
    const tunConfig = JSON.parse(await readFile(join(dataDir, 'runtime', 'sing-box-tun.json'), 'utf8')) as { route: { rules: unknown[] } };
    expect(JSON.stringify(tunConfig.route.rules)).not.toContain('process_');

    // TCP from curl and UDP from a bare socket, neither told of any proxy: the site sees the server's exit.
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.exit);
    const udp = await nodeInUser(
      `const s=require('dgram').createSocket('udp4');s.on('message',m=>{process.stdout.write(String(m));process.exit(0)});s.send('hi',5353,'${ADDRESSES.target}');setTimeout(()=>process.exit(3),4000)`,
    );
    expect(udp.trim()).toBe(ADDRESSES.exit);
    // The LAN stays direct: the LAN host sees the machine's own LAN address.
    expect(await curlFromUser(LAN_URL)).toBe(ADDRESSES.userLan);
    // DNS, asked of the machine's resolver, is answered through the server: the resolver hears
    // only the exit address, never the machine's.
    const answer = await nodeInUser(
      `const r=new (require('dns').promises.Resolver)();r.setServers(['${ADDRESSES.dns}']);r.resolve4('site.test').then(a=>process.stdout.write(a.join(',')),e=>{process.stdout.write('ERR '+e.code);})`,
    );
    expect(answer).toBe(ADDRESSES.target);
    const askers = JSON.parse(await askWorld('dns-askers')) as string[];
    expect(askers.length).toBeGreaterThan(0);
    expect(new Set(askers)).toEqual(new Set([ADDRESSES.exit]));

    // The core's own connection to the server leaves direct (sing-box knows it by its path): the
    // server is never asked, through the tunnel, to reach itself.
    const access = await readFile(world.accessLog, 'utf8');
    expect(access).toContain(`accepted tcp:${ADDRESSES.target}:8080`);
    expect(access).not.toContain(`tcp:${ADDRESSES.world}:${LAB_PORT}`);

    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(app.output()).toMatch(/system-wide: capture removed/);
    expect(await waitUntil(async () => (await traces()).length === 0, 5000, 50)).toBe(true);
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.user);
    expect(await waitUntil(() => processesMentioning(join(dataDir, 'runtime')).length === 0, 5000)).toBe(true);
  });

  it('kill -9 of sing-box, then of the app: each time no device, rule, route or table is left, and the network works within 5 s', async () => {
    const dataDir = join(world.dir, 'tun-crash');
    const runtime = join(dataDir, 'runtime');
    let app = startApp(world, dataDir, ['--mode', 'system-wide', '--capture', 'tun', '--routing', await routingFile(dataDir)]);
    await app.ready;
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.exit);

    process.kill(await pidIn(join(runtime, 'tun-engine.pid')), 'SIGKILL');
    const engineKilledAt = Date.now();
    expect(await waitUntil(async () => (await traces()).length === 0 && (await tryCurl(TARGET_URL, 1)) === ADDRESSES.user, 5000, 50)).toBe(true);
    const engineKillToNetworkMs = Date.now() - engineKilledAt;
    // The app says why system-wide mode stopped; the tunnel itself runs on.
    expect(await waitUntil(() => /TUN engine/.test(app.output()), 5000)).toBe(true);
    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);

    app = startApp(world, dataDir, ['--mode', 'system-wide', '--capture', 'tun', '--routing', await routingFile(dataDir)]);
    await app.ready;
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.exit);
    const engine = await pidIn(join(runtime, 'tun-engine.pid'));
    app.child.kill('SIGKILL');
    const appKilledAt = Date.now();
    expect(await waitUntil(async () => (await traces()).length === 0 && (await tryCurl(TARGET_URL, 1)) === ADDRESSES.user, 5000, 50)).toBe(true);
    const appKillToNetworkMs = Date.now() - appKilledAt;
    console.log(JSON.stringify({ sing_box_kill_to_network_ms: engineKillToNetworkMs, app_kill_to_network_ms: appKillToNetworkMs }));
    expect(isRunning(engine)).toBe(false);
    expect(await waitUntil(() => processesMentioning(runtime).length === 0, 5000)).toBe(true);
  });

  it('app, watchdog and sing-box all killed: the next start finds sing-box’s rules by the record and removes them', async () => {
    const dataDir = join(world.dir, 'tun-all-killed');
    const runtime = join(dataDir, 'runtime');
    const first = startApp(world, dataDir, ['--mode', 'system-wide', '--capture', 'tun', '--routing', await routingFile(dataDir)]);
    await first.ready;
    const [watchdog, engine] = [await pidIn(join(runtime, 'tun-watchdog.pid')), await pidIn(join(runtime, 'tun-engine.pid'))];
    for (const pid of [watchdog, first.child.pid!, engine]) process.kill(pid, 'SIGKILL');
    await exited(first.child);
    expect(await waitUntil(() => !isRunning(engine), 5000)).toBe(true);
    // A killed sing-box takes nothing back: its rules and table stay, the device goes with it.
    expect((await traces()).join('\n')).toContain('ip -4 rules');

    const next = startApp(world, dataDir, ['--mode', 'proxy']);
    await next.ready;
    expect(await traces()).toEqual([]);
    expect(next.output()).toMatch(/the last run left the TUN engine's routing rules; removing it/);
    expect(await curlFromUser(TARGET_URL)).toBe(ADDRESSES.user);
    next.child.kill('SIGTERM');
    expect(await exited(next.child)).toBe(0);
  });

  it('an Auto switch keeps the TUN up: the same device and the same sing-box, only the server the traffic leaves through changes', async () => {
    const dataDir = join(world.dir, 'tun-switch');
    const runtime = join(dataDir, 'profile', 'runtime');
    const app = startApp(
      world,
      dataDir,
      ['--mode', 'system-wide', '--capture', 'tun', '--auto', '--data-dir', join(dataDir, 'profile'), '--test-url', `${TARGET_URL}generate_204`, '--settings', await worldSettings(dataDir)],
      world.twoServerSubscription,
    );
    await app.ready;
    const first = await curlFromUser(TARGET_URL);
    expect([ADDRESSES.exit, ADDRESSES.exit2]).toContain(first);
    const other = first === ADDRESSES.exit ? ADDRESSES.exit2 : ADDRESSES.exit;
    const device = await deviceIndex(world.topology.user, LINUX_TUN.device);
    const engine = await pidIn(join(runtime, 'tun-engine.pid'));
    expect(device).not.toBeNull();

    world.labServers[first === ADDRESSES.exit ? 0 : 1]!.kill('SIGKILL');
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === other, 45_000, 200)).toBe(true);
    expect(app.output()).toMatch(/AUTO/);
    expect(await deviceIndex(world.topology.user, LINUX_TUN.device)).toBe(device);
    expect(await pidIn(join(runtime, 'tun-engine.pid'))).toBe(engine);
    expect(isRunning(engine)).toBe(true);
    expect(app.output()).not.toMatch(/system-wide: (capture removed|applied again)/);

    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(await waitUntil(async () => (await traces()).length === 0, 5000, 50)).toBe(true);
  });
});
