/**
 * System-wide mode for real, as root, in network namespaces this test creates and removes: the
 * app (`npm run cli -- connect --mode system-wide`) runs in a "user machine" namespace; plain
 * programs there, which know nothing of proxies, reach a site in the "world" namespace through the
 * lab's server (the site sees the server's exit address), a LAN address stays direct, DNS goes
 * through the core, and nothing of the capture outlives a disconnect, a kill -9 of the app, or
 * stops traffic for long when the core is killed.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesMentioning, waitUntil } from '../../app/tunnel/testing/processes';
import { shareLink } from '../lab/share-links';
import { serverConfig } from '../lab/v2ray-server';
import { buildWorld } from '../lab/world';
import { ADDRESSES, captureTraces, createTopology, namespacesAvailable, type Topology } from './netns';

const exec = promisify(execFile);
const LAB_PORT = 20000;

let topology: Topology;
let dir: string;
const started: ChildProcess[] = [];

function startIn(ns: string, command: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn('ip', ['netns', 'exec', ns, ...command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  return child;
}

/** What a site answers a plain curl in the user namespace (its view of where the request came from). */
async function curlFromUser(url: string, timeoutS = 2): Promise<string> {
  const { stdout } = await exec('ip', ['netns', 'exec', topology.user, 'curl', '-s', '--noproxy', '*', '-m', String(timeoutS), url]);
  return stdout.trim();
}

async function tryCurl(url: string, timeoutS = 1): Promise<string | null> {
  return curlFromUser(url, timeoutS).catch(() => null);
}

/** A Node program with no proxy: one UDP datagram to the echo service, or a DNS lookup through a chosen server. */
async function nodeInUser(script: string): Promise<string> {
  const { stdout } = await exec('ip', ['netns', 'exec', topology.user, process.execPath, '-e', script], { timeout: 10_000 });
  return stdout.trim();
}

const targetUrl = `http://${ADDRESSES.target}:8080/`;
const lanUrl = `http://${ADDRESSES.lan}:8080/`;

function startApp(dataDir: string, subscriptionFile: string, extra: string[] = []): { child: ChildProcess; output: () => string; applied: Promise<void> } {
  const child = startIn(
    topology.user,
    [process.execPath, '--import', 'tsx', 'main/cli/index.ts', 'connect', '--subscription', subscriptionFile, '--mode', 'system-wide', ...extra],
    { ...process.env, STEADFAST_DATA_DIR: dataDir },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const applied = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/^system-wide: applied /m.test(out)) resolve();
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`the app exited (${String(code)}) before capture was applied:\n${out}`)));
  });
  return { child, output: () => out, applied };
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const available = namespacesAvailable();

describe.skipIf(!available)('system-wide mode in network namespaces (root)', () => {
  let subscriptionFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'steadfast-system-wide-'));
    topology = await createTopology();
    // The lab's server, in the world, listening on the world's address and leaving from the exit address.
    const spec = { ...buildWorld({ servers: 1, subscriptions: 1, seed: 14, latency: [0, 0] }).servers[0]!, protocol: 'vmess' as const, network: 'tcp' as const, security: 'none' as const, exitIp: ADDRESSES.exit, ipv6: false };
    const config = serverConfig([spec], [LAB_PORT], null) as { inbounds: { listen: string }[]; log: Record<string, unknown> };
    config.inbounds[0]!.listen = ADDRESSES.world;
    // What the server was asked to reach: a probe captured into the tunnel would show as a request for the server itself.
    config.log.access = join(dir, 'lab-access.log');
    await writeFile(join(dir, 'server.json'), JSON.stringify(config));
    subscriptionFile = join(dir, 'subscription.txt');
    await writeFile(subscriptionFile, `${shareLink(spec, { host: ADDRESSES.world, port: LAB_PORT })}\n`);
    startIn(topology.world, ['v2ray', '-config', join(dir, 'server.json')]);
    const services = startIn(topology.world, [process.execPath, 'e2e/system-wide/world-services.mjs', ADDRESSES.target, ADDRESSES.lan, ADDRESSES.dns]);
    await new Promise<void>((resolve) => services.stdout!.once('data', () => resolve()));
    expect(await waitUntil(async () => (await tryCurl(targetUrl)) === ADDRESSES.user, 5000)).toBe(true);
  });

  afterAll(async () => {
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await topology?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
    const { stdout } = await exec('ip', ['netns', 'list']);
    expect(stdout).not.toContain(topology.user);
    expect(stdout).not.toContain(topology.world);
  });

  it('captures plain programs, keeps the LAN direct, sends DNS through the core, and removes everything on SIGTERM', async () => {
    const dataDir = join(dir, 'data-clean');
    const app = startApp(dataDir, subscriptionFile, ['--probe']);
    await app.applied;
    expect(app.output()).toMatch(/system-wide: applied nftables TPROXY \(TCP, UDP\) with policy routing/);

    // TCP from curl and UDP from a bare socket: the site sees the lab server's exit address.
    expect(await curlFromUser(targetUrl)).toBe(ADDRESSES.exit);
    const udp = await nodeInUser(
      `const s=require('dgram').createSocket('udp4');s.on('message',m=>{process.stdout.write(String(m));process.exit(0)});s.send('hi',5353,'${ADDRESSES.target}');setTimeout(()=>process.exit(3),4000)`,
    );
    expect(udp).toBe(ADDRESSES.exit);
    // The LAN stays direct.
    expect(await curlFromUser(lanUrl)).toBe(ADDRESSES.userLan);
    // DNS: a lookup through the machine's resolver address arrives from the exit address.
    const answer = await nodeInUser(
      `const r=new (require('dns').promises.Resolver)();r.setServers(['${ADDRESSES.dns}']);r.resolve4('site.test').then(a=>process.stdout.write(a.join(',')),e=>{process.stdout.write('ERR '+e.code);})`,
    );
    expect(answer).toBe(ADDRESSES.target);
    const { stdout: askers } = await exec('ip', ['netns', 'exec', topology.world, 'curl', '-s', '-m', '2', `http://${ADDRESSES.target}:8080/dns-askers`]);
    expect(JSON.parse(askers)).toEqual([ADDRESSES.exit]);

    // A probe through the prober's core goes straight to the server, not into the capture and
    // through the tunnel: the server is never asked to reach itself.
    const proberFile = (await readdir(join(dataDir, 'runtime'))).find((name) => name.startsWith('prober-'));
    const prober = JSON.parse(await readFile(join(dataDir, 'runtime', proberFile!), 'utf8')) as { inbounds: { port: number }[] };
    const { stdout: probed } = await exec('ip', ['netns', 'exec', topology.user, 'curl', '-s', '-m', '3', '-x', `http://127.0.0.1:${prober.inbounds[0]!.port}`, `${targetUrl}generate_204`, '-o', '/dev/null', '-w', '%{http_code}']);
    expect(probed).toBe('204');
    const access = await readFile(join(dir, 'lab-access.log'), 'utf8');
    expect(access).toContain(`accepted tcp:${ADDRESSES.target}:8080`);
    expect(access).not.toContain(`tcp:${ADDRESSES.world}:${LAB_PORT}`);

    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(app.output()).toMatch(/system-wide: capture removed/);
    expect(await captureTraces(topology.user)).toEqual([]);
    expect(await curlFromUser(targetUrl)).toBe(ADDRESSES.user);
  });

  it('kill -9 of the core: traffic flows again within 5 s; kill -9 of the app: every rule and route is gone within 5 s', async () => {
    const dataDir = join(dir, 'data-crash');
    const app = startApp(dataDir, subscriptionFile);
    await app.applied;
    expect(await curlFromUser(targetUrl)).toBe(ADDRESSES.exit);

    const [core] = processesMentioning(join(dataDir, 'runtime'));
    expect(core).toBeDefined();
    process.kill(core!, 'SIGKILL');
    const killedAt = Date.now();
    expect(await waitUntil(async () => (await tryCurl(targetUrl, 1)) !== null, 5000, 50)).toBe(true);
    console.log(JSON.stringify({ core_kill_to_traffic_ms: Date.now() - killedAt }));
    // Back through the restarted core, with capture re-applied.
    expect(await waitUntil(async () => (await tryCurl(targetUrl, 1)) === ADDRESSES.exit, 5000, 100)).toBe(true);

    app.child.kill('SIGKILL');
    const appKilledAt = Date.now();
    expect(await waitUntil(async () => (await captureTraces(topology.user)).length === 0, 5000, 50)).toBe(true);
    console.log(JSON.stringify({ app_kill_to_rules_gone_ms: Date.now() - appKilledAt }));
    expect(await curlFromUser(targetUrl)).toBe(ADDRESSES.user);
    expect(await waitUntil(() => processesMentioning(join(dataDir, 'runtime')).length === 0, 5000)).toBe(true);
  });
  it('with --auto: the whole engine captures the same way and SIGTERM removes it all', async () => {
    const dataDir = join(dir, 'data-auto');
    const app = startApp(dataDir, subscriptionFile, ['--auto', '--data-dir', join(dataDir, 'profile'), '--test-url', `http://${ADDRESSES.target}:8080/generate_204`]);
    await app.applied;
    expect(await curlFromUser(targetUrl)).toBe(ADDRESSES.exit);
    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(await captureTraces(topology.user)).toEqual([]);
    expect(await curlFromUser(targetUrl)).toBe(ADDRESSES.user);
  });
});
