/**
 * The leak watcher of the kill-switch test and the system-wide soak: a table of its own in the
 * user namespace, after every other rule (postrouting, last priority), counting every packet that
 * leaves the user's outer interface for any address but the servers' (IPv4 or IPv6), and beside
 * those, for IPv6, the link's own neighbour discovery and multicast. Also: what of the app's rules is left.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADDRESSES, captureTraces } from './netns';
import type { SystemWideWorld } from './world';

const exec = promisify(execFile);
/** Everything the app's kill switch and capture could have left: their tables' names. */
export const OUR_TABLES = ['steadfast_killswitch', 'steadfast_vpn'];

export interface LeakWatch {
  leaked(): Promise<{ ipv4: number; ipv6: number }>;
  reset(): Promise<void>;
}

const userNft = async (world: SystemWideWorld, ...args: string[]) => (await exec('ip', ['netns', 'exec', world.topology.user, 'nft', ...args], { timeout: 20_000 })).stdout;

export interface LeakWatchOptions {
  /** The server addresses packets may go to (default: the world's IPv4 address, where the lab's servers listen). */
  servers?: { ipv4: readonly string[]; ipv6: readonly string[] };
  /** The watcher's table (default `leak_watch`); a second watcher in one world needs its own. */
  table?: string;
}

export async function watchLeaks(world: SystemWideWorld, options: LeakWatchOptions = {}): Promise<LeakWatch> {
  const device = world.topology.userDevice;
  const table = options.table ?? 'leak_watch';
  const servers = options.servers ?? { ipv4: [ADDRESSES.world], ipv6: [] };
  const allowed4 = servers.ipv4.length > 0 ? ` ip daddr != { ${servers.ipv4.join(', ')} }` : ' meta nfproto ipv4';
  const ruleset = [
    `table inet ${table} {`,
    '  counter leaked4 { }',
    '  counter leaked6 { }',
    '  chain out {',
    '    type filter hook postrouting priority 500; policy accept;',
    `    oifname "${device}"${allowed4} counter name leaked4`,
    `    oifname "${device}" ip6 daddr != { fe80::/10, ff02::/16${servers.ipv6.map((address) => `, ${address}`).join('')} } counter name leaked6`,
    '  }',
    '}',
  ].join('\n');
  const file = join(world.dir, `${table}.nft`);
  await writeFile(file, ruleset);
  await userNft(world, '-f', file);
  const packets = async (name: string) => Number(/packets (\d+)/.exec(await userNft(world, 'list', 'counter', 'inet', table, name))?.[1] ?? NaN);
  return {
    leaked: async () => ({ ipv4: await packets('leaked4'), ipv6: await packets('leaked6') }),
    reset: async () => {
      await userNft(world, 'reset', 'counters', 'table', 'inet', table);
    },
  };
}

/** The app's nftables tables present in the user namespace. */
export async function ourTables(world: SystemWideWorld): Promise<string[]> {
  const tables = await userNft(world, 'list', 'tables');
  return OUR_TABLES.filter((name) => tables.split('\n').some((line) => line.trim() === `table inet ${name}`));
}

/** Every rule, table, policy rule and route of the app's left in the user namespace. */
export async function rulesLeft(world: SystemWideWorld): Promise<string[]> {
  return [...new Set([...(await ourTables(world)).map((name) => `nftables table ${name}`), ...(await captureTraces(world.topology.user))])];
}
