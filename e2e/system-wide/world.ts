/**
 * The system-wide world (test and benchmark): the namespaces, the lab's server in the world
 * (listening on the world's address, leaving from the exit address, logging what it is asked to
 * reach), the world's sites and DNS server, and the app started in the user namespace as a user
 * runs it (`npm run cli -- connect …`).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { shareLink } from '../lab/share-links';
import { serverConfig } from '../lab/v2ray-server';
import { buildWorld } from '../lab/world';
import { ADDRESSES, ADDRESSES6, addIpv6, createTopology, type Topology } from './netns';

const exec = promisify(execFile);
export const LAB_PORT = 20000;
export const TARGET_URL = `http://${ADDRESSES.target}:8080/`;
export const LAN_URL = `http://${ADDRESSES.lan}:8080/`;

export type NamespaceEntry = 'ip-netns-exec' | 'nsenter';

export interface SystemWideWorld {
  topology: Topology;
  dir: string;
  subscriptionFile: string;
  /** Both lab servers (the second leaves from ADDRESSES.exit2), for Auto to switch between. */
  twoServerSubscription: string;
  /** Each lab server alone, first and second. */
  serverSubscriptions: string[];
  /**
   * In a world with IPv6: the first server alone, its link naming the server by the world's IPv6
   * address (vmess `add` 2001:db8:5346::fe), as a provider with an IPv6-only entry point writes it.
   */
  ipv6AddressedSubscription: string;
  /** The lab servers' processes, first and second. */
  labServers: ChildProcess[];
  /** Each lab server's share link as a subscription without an IPv6 declaration writes it. */
  undeclaredLinks: string[];
  accessLog: string;
  /**
   * Starts a command in a namespace: by `ip netns exec` (which gives it a mount namespace of its
   * own with a fresh /sys: no cgroup hierarchy is mounted there), or by `nsenter --net` (the
   * network namespace alone: it sees the machine's mounts).
   */
  startIn(ns: string, command: string[], env?: NodeJS.ProcessEnv, enter?: NamespaceEntry): ChildProcess;
  /** Starts a lab server again when a test killed it (an Auto switch's fault), and waits until it listens. */
  reviveServer(i: 0 | 1): Promise<void>;
  /** Runs a command in the user namespace and returns its output. */
  inUser(command: string[], timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface WorldOptions {
  /**
   * IPv6 on the link and a dual-stack site (ADDRESSES6); the links declare each server's IPv6
   * (`ipv6=1` / `ipv6=0`). With `firstServerCarriesIpv6` the first server dials IPv6 destinations
   * from ADDRESSES6.exit; the second never carries IPv6.
   */
  ipv6?: { firstServerCarriesIpv6: boolean };
  /** Goes into the namespaces' names (createTopology). */
  label?: string;
  /**
   * A name for the dual-stack site, as a provider's test URL would carry: the user machine
   * resolves it to the site's IPv4 and IPv6 addresses, the world (the lab's servers) to its IPv4
   * one. Written to /etc/netns/<namespace>/hosts, which `ip netns exec` puts in place of
   * /etc/hosts for what runs there; removed with the world.
   */
  siteName?: string;
  /** The dual-stack site answers generate_204 on its IPv6 address this much later (the monitor's IPv6 check answering after the connection is up). */
  ipv6ProbeDelayMs?: number;
}

/** A share link that declares the server's IPv6 as subscriptions do: a vmess JSON field, or `ipv6=` in the query. */
export function declaringIpv6(link: string, carries: boolean): string {
  if (!link.startsWith('vmess://')) return link.replace(/(#|$)/, `${link.includes('?') ? '&' : '?'}ipv6=${carries ? 1 : 0}$1`);
  const body = JSON.parse(Buffer.from(link.slice(8), 'base64').toString('utf8')) as Record<string, unknown>;
  return `vmess://${Buffer.from(JSON.stringify({ ...body, ipv6: carries ? '1' : '0' }), 'utf8').toString('base64')}`;
}

export async function startSystemWideWorld(options: WorldOptions = {}): Promise<SystemWideWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'steadfast-system-wide-'));
  const topology = await createTopology(options.label);
  const started: ChildProcess[] = [];
  const startIn = (ns: string, command: string[], env: NodeJS.ProcessEnv = process.env, enter: NamespaceEntry = 'ip-netns-exec') => {
    const [file, ...args] = enter === 'nsenter' ? ['nsenter', `--net=/run/netns/${ns}`, ...command] : ['ip', 'netns', 'exec', ns, ...command];
    const child = spawn(file!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(child);
    return child;
  };
  const world: SystemWideWorld = {
    topology,
    dir,
    subscriptionFile: join(dir, 'subscription.txt'),
    twoServerSubscription: join(dir, 'two-servers.txt'),
    serverSubscriptions: [join(dir, 'server-0.txt'), join(dir, 'server-1.txt')],
    ipv6AddressedSubscription: join(dir, 'server-0-over-ipv6.txt'),
    labServers: [],
    undeclaredLinks: [],
    accessLog: join(dir, 'lab-access.log'),
    startIn,
    reviveServer: async (i) => {
      const old = world.labServers[i]!;
      if (old.exitCode === null && old.signalCode === null) return;
      world.labServers[i] = startIn(topology.world, ['v2ray', '-config', join(dir, `server-${i}.json`)]);
      for (let tries = 0; tries < 100; tries++) {
        const { stdout } = await exec('ip', ['netns', 'exec', topology.world, 'ss', '-Hltn', `sport = :${LAB_PORT + i}`]);
        if (stdout.trim() !== '') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`lab server ${i} did not listen again`);
    },
    inUser: async (command, timeoutMs = 30_000) => (await exec('ip', ['netns', 'exec', topology.user, ...command], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 })).stdout.trim(),
    close: async () => {
      for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await topology.destroy();
      await rm(dir, { recursive: true, force: true });
      for (const ns of hostsWritten) await rm(join('/etc/netns', ns), { recursive: true, force: true });
    },
  };
  const hostsWritten: string[] = [];
  try {
    if (options.ipv6) await addIpv6(topology);
    if (options.siteName) {
      const site = options.siteName;
      for (const [ns, lines] of [
        [topology.user, [`${ADDRESSES.target} ${site}`, ...(options.ipv6 ? [`${ADDRESSES6.target} ${site}`] : [])]],
        [topology.world, [`${ADDRESSES.target} ${site}`]],
      ] as const) {
        await mkdir(join('/etc/netns', ns), { recursive: true });
        hostsWritten.push(ns);
        await writeFile(join('/etc/netns', ns, 'hosts'), ['127.0.0.1 localhost', '::1 localhost', ...lines, ''].join('\n'));
      }
    }
    const links: string[] = [];
    for (const [i, exitIp] of [ADDRESSES.exit, ADDRESSES.exit2].entries()) {
      const spec = {
        ...buildWorld({ servers: 2, subscriptions: 1, seed: 14, latency: [0, 0] }).servers[i]!,
        protocol: 'vmess' as const,
        network: 'tcp' as const,
        security: 'none' as const,
        exitIp,
        ipv6: i === 0 && options.ipv6?.firstServerCarriesIpv6 === true,
      };
      const config = serverConfig([spec], [LAB_PORT + i], null) as { inbounds: { listen: string }[]; outbounds: { tag: string; sendThrough?: string }[]; log: Record<string, unknown> };
      // With IPv6 on the link, on both of the world's addresses (a dual-stack socket).
      config.inbounds[0]!.listen = options.ipv6 ? '::' : ADDRESSES.world;
      // The IPv6 exit: what a site sees of an IPv6 connection through this server.
      for (const outbound of config.outbounds) if (outbound.tag.startsWith('out6-')) outbound.sendThrough = ADDRESSES6.exit;
      // What the server was asked to reach: a probe captured into the tunnel would show as a request for the server itself.
      if (i === 0) config.log.access = world.accessLog;
      await writeFile(join(dir, `server-${i}.json`), JSON.stringify(config));
      const link = shareLink(spec, { host: ADDRESSES.world, port: LAB_PORT + i });
      world.undeclaredLinks.push(link);
      links.push(options.ipv6 ? declaringIpv6(link, spec.ipv6) : link);
      await writeFile(world.serverSubscriptions[i]!, `${links[i]}\n`);
      if (i === 0 && options.ipv6) await writeFile(world.ipv6AddressedSubscription, `${declaringIpv6(shareLink(spec, { host: ADDRESSES6.world, port: LAB_PORT }), spec.ipv6)}\n`);
      world.labServers.push(startIn(topology.world, ['v2ray', '-config', join(dir, `server-${i}.json`)]));
    }
    await writeFile(world.subscriptionFile, `${links[0]}\n`);
    await writeFile(world.twoServerSubscription, `${links.join('\n')}\n`);
    const services = startIn(topology.world, [process.execPath, 'e2e/system-wide/world-services.mjs', ADDRESSES.target, ADDRESSES.lan, ADDRESSES.dns, ...(options.ipv6 ? [ADDRESSES6.target, String(options.ipv6ProbeDelayMs ?? 0)] : [])]);
    await new Promise<void>((resolve, reject) => {
      services.stdout!.once('data', () => resolve());
      services.once('exit', (code) => reject(new Error(`the world's services exited (${String(code)})`)));
    });
  } catch (error) {
    await world.close();
    throw error;
  }
  return world;
}

export interface RunningApp {
  child: ChildProcess;
  output(): string;
  /** Resolves when the app printed its proxy addresses (proxy mode) or that capture is applied. */
  ready: Promise<void>;
}

/** `npm run cli -- connect --subscription FILE [extra…]` in the user namespace, with its own data folder. */
export function startApp(world: SystemWideWorld, dataDir: string, extra: string[], subscription = world.subscriptionFile, o: { env?: NodeJS.ProcessEnv; enter?: NamespaceEntry } = {}): RunningApp {
  const child = world.startIn(
    world.topology.user,
    [process.execPath, '--import', 'tsx', 'main/cli/index.ts', 'connect', '--subscription', subscription, ...extra],
    { ...process.env, ...o.env, STEADFAST_DATA_DIR: dataDir },
    o.enter,
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const wanted = extra.includes('system-wide') ? /^system-wide: applied /m : /^socks5:\/\//m;
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => {
      if (wanted.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the app exited (${String(code)}) before it was ready:\n${out}`)));
  });
  return { child, output: () => out, ready };
}

export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
