/**
 * Network namespaces for the system-wide tests: a "user machine" joined by one veth pair to a
 * "world" that holds the lab's server, the target sites and a DNS server. Addresses come from the
 * documentation ranges (RFC 5737), so the user's traffic to them is not LAN traffic; one private
 * pair on the same link stands for the user's LAN. Everything lives inside the namespaces: they
 * are removed with all their rules, routes and processes, even when a test fails.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const ADDRESSES = {
  /** The user machine's address toward the world (its default route goes through the world). */
  user: '198.51.100.1',
  world: '198.51.100.254',
  /** A site on the "internet". */
  target: '203.0.113.10',
  /** The DNS server the user's programs ask. */
  dns: '203.0.113.53',
  /** Where the lab server's traffic leaves from: what a site sees through the tunnel. */
  exit: '203.0.113.99',
  /** The second lab server's exit (the Auto switch test). */
  exit2: '203.0.113.98',
  userLan: '192.168.77.1',
  lan: '192.168.77.2',
} as const;

/** IPv6 from the documentation range (RFC 3849), for the worlds that have it (addIpv6). */
export const ADDRESSES6 = {
  user: '2001:db8:5346::1',
  world: '2001:db8:5346::fe',
  /** The dual-stack site's IPv6 address (beside ADDRESSES.target). */
  target: '2001:db8:5347::10',
  /** Where an IPv6-capable lab server's IPv6 traffic leaves from. */
  exit: '2001:db8:5347::99',
} as const;

export interface Topology {
  user: string;
  world: string;
  /** The user machine's outer interface and the world's end of the link. */
  userDevice: string;
  worldDevice: string;
  /** argv prefix that runs a command inside a namespace. */
  inside(ns: string): string[];
  destroy(): Promise<void>;
}

async function ip(...args: string[]): Promise<void> {
  await exec('ip', args);
}

/**
 * A namespace's name: `sfv-ROLE-TAG`, with a label in it (the test's own, else
 * `STEADFAST_NETNS_LABEL`) when there is one, so that runs sharing one machine (several checkouts'
 * tests at once) and a test's own namespaces are told apart at a glance.
 */
export function namespaceName(role: string, tag = randomBytes(3).toString('hex'), label = process.env.STEADFAST_NETNS_LABEL): string {
  const clean = label?.replace(/[^A-Za-z0-9-]/g, '').slice(0, 24);
  return clean ? `sfv-${clean}-${role}-${tag}` : `sfv-${role}-${tag}`;
}

/** `label` goes into the namespaces' names (namespaceName). */
export async function createTopology(label?: string): Promise<Topology> {
  const tag = randomBytes(3).toString('hex');
  const user = namespaceName('user', tag, label);
  const world = namespaceName('world', tag, label);
  const topology: Topology = {
    user,
    world,
    userDevice: `sfu${tag}`,
    worldDevice: `sfw${tag}`,
    inside: (ns) => ['ip', 'netns', 'exec', ns],
    destroy: async () => {
      for (const ns of [user, world]) await exec('ip', ['netns', 'delete', ns]).catch(() => undefined);
    },
  };
  try {
    await ip('netns', 'add', user);
    await ip('netns', 'add', world);
    await ip('link', 'add', `sfu${tag}`, 'type', 'veth', 'peer', 'name', `sfw${tag}`);
    await ip('link', 'set', `sfu${tag}`, 'netns', user);
    await ip('link', 'set', `sfw${tag}`, 'netns', world);
    await ip('-n', user, 'addr', 'add', `${ADDRESSES.user}/24`, 'dev', `sfu${tag}`);
    await ip('-n', user, 'addr', 'add', `${ADDRESSES.userLan}/24`, 'dev', `sfu${tag}`);
    await ip('-n', world, 'addr', 'add', `${ADDRESSES.world}/24`, 'dev', `sfw${tag}`);
    await ip('-n', world, 'addr', 'add', `${ADDRESSES.lan}/24`, 'dev', `sfw${tag}`);
    for (const address of [ADDRESSES.target, ADDRESSES.dns, ADDRESSES.exit, ADDRESSES.exit2]) await ip('-n', world, 'addr', 'add', `${address}/32`, 'dev', 'lo');
    for (const [ns, dev] of [
      [user, `sfu${tag}`],
      [world, `sfw${tag}`],
    ] as const) {
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      await ip('-n', ns, 'link', 'set', dev, 'up');
    }
    await ip('-n', user, 'route', 'add', 'default', 'via', ADDRESSES.world);
  } catch (error) {
    await topology.destroy();
    throw error;
  }
  return topology;
}

/**
 * Caps the link between the user machine and the world at `mbit` Mbit/s each way, as a broadband
 * line caps it: a token bucket on each end's way out (tc's tbf: a rate, no added delay or loss,
 * unlike netem), with a burst of 10 ms at that rate (at least 32 KiB).
 */
export async function capLink(topology: Topology, mbit: number): Promise<void> {
  if (!Number.isFinite(mbit) || mbit <= 0) throw new Error(`a link rate must be a positive number of Mbit/s, not ${mbit}`);
  const burstBytes = Math.max(32 * 1024, Math.round((mbit * 1_000_000) / 8 / 100));
  for (const [ns, device] of [
    [topology.user, topology.userDevice],
    [topology.world, topology.worldDevice],
  ] as const) {
    await exec('ip', ['netns', 'exec', ns, 'tc', 'qdisc', 'add', 'dev', device, 'root', 'tbf', 'rate', `${mbit}mbit`, 'burst', String(burstBytes), 'latency', '50ms']);
  }
}

/**
 * IPv6 on the link (as a router advertisement would give it; no duplicate detection to wait out),
 * the user's default IPv6 route through the world, and the world's IPv6 site and exit addresses.
 */
export async function addIpv6(topology: Topology): Promise<void> {
  await ip('-n', topology.user, 'addr', 'add', `${ADDRESSES6.user}/64`, 'dev', topology.userDevice, 'nodad');
  await ip('-n', topology.world, 'addr', 'add', `${ADDRESSES6.world}/64`, 'dev', topology.worldDevice, 'nodad');
  for (const address of [ADDRESSES6.target, ADDRESSES6.exit]) await ip('-n', topology.world, 'addr', 'add', `${address}/128`, 'dev', 'lo', 'nodad');
  await ip('-n', topology.user, '-6', 'route', 'add', 'default', 'via', ADDRESSES6.world);
}

/** Can this process make namespaces and nftables rules (root with the tools installed)? */
export function namespacesAvailable(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('nft', ['--version'], { stdio: 'ignore' });
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What a namespace has of system-wide capture: our nftables table, our policy rule and route table. */
export async function captureTraces(ns: string): Promise<string[]> {
  const traces: string[] = [];
  const run = async (...args: string[]) => (await exec(args[0] as string, args.slice(1))).stdout;
  const ruleset = await run('ip', 'netns', 'exec', ns, 'nft', 'list', 'ruleset');
  if (ruleset.includes('steadfast_vpn')) traces.push('nftables table steadfast_vpn');
  for (const family of ['-4', '-6']) {
    const rules = await run('ip', '-n', ns, family, 'rule', 'show');
    if (rules.includes('0x5346')) traces.push(`ip ${family} rule fwmark 0x5346`);
    const routes = await run('ip', '-n', ns, family, 'route', 'show', 'table', '5346').catch(() => '');
    if (routes.trim() !== '') traces.push(`ip ${family} route table 5346`);
  }
  return traces;
}

/**
 * What a namespace has of sing-box's TUN capture (app/system-wide/tun/policy/sing-box-tun.ts,
 * LINUX_TUN): its device, its policy-routing rules (by their priorities), its route table, and
 * any nftables table of sing-box's.
 */
export async function tunTraces(ns: string, o: { device: string; table: number; priorities: readonly number[] }): Promise<string[]> {
  const traces: string[] = [];
  const run = async (...args: string[]) => (await exec(args[0] as string, args.slice(1))).stdout;
  const links = await run('ip', '-n', ns, '-o', 'link', 'show');
  if (new RegExp(`^\\d+: ${o.device}[:@]`, 'm').test(links)) traces.push(`device ${o.device}`);
  for (const family of ['-4', '-6']) {
    const rules = await run('ip', '-n', ns, family, 'rule', 'show');
    const ours = rules.split('\n').filter((line) => o.priorities.includes(Number(line.split(':')[0])));
    if (ours.length > 0) traces.push(`ip ${family} rules ${[...new Set(ours.map((line) => line.split(':')[0]))].join(',')}`);
    const routes = await run('ip', '-n', ns, family, 'route', 'show', 'table', String(o.table)).catch(() => '');
    if (routes.trim() !== '') traces.push(`ip ${family} route table ${o.table}`);
  }
  const ruleset = await run('ip', 'netns', 'exec', ns, 'nft', 'list', 'tables');
  if (ruleset.split('\n').some((line) => line.trim() === 'table inet sing-box')) traces.push('nftables table sing-box');
  return traces;
}

/** The interface index of a device in a namespace, or null: the same index means the same device. */
export async function deviceIndex(ns: string, device: string): Promise<number | null> {
  const out = await exec('ip', ['-n', ns, '-o', 'link', 'show', 'dev', device]).then(
    (r) => r.stdout,
    () => '',
  );
  const index = /^(\d+):/.exec(out);
  return index ? Number(index[1]) : null;
}
