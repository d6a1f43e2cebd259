/**
 * The leak watcher of the kill-switch test and the system-wide soak: a table of its own in the
 * user namespace, after every other rule (postrouting, last priority), counting every packet that
 * leaves the user's outer interface for any address but the server's, or — for IPv6 — anything
 * but the link's own neighbour discovery and multicast. Also: what of the app's rules is left.
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

export async function watchLeaks(world: SystemWideWorld): Promise<LeakWatch> {
  const device = world.topology.userDevice;
  const ruleset = [
    'table inet leak_watch {',
    '  counter leaked4 { }',
    '  counter leaked6 { }',
    '  chain out {',
    '    type filter hook postrouting priority 500; policy accept;',
    `    oifname "${device}" ip daddr != ${ADDRESSES.world} counter name leaked4`,
    `    oifname "${device}" ip6 daddr != { fe80::/10, ff02::/16 } counter name leaked6`,
    '  }',
    '}',
  ].join('\n');
  await writeFile(join(world.dir, 'leak-watch.nft'), ruleset);
  await userNft(world, '-f', join(world.dir, 'leak-watch.nft'));
  const packets = async (name: string) => Number(/packets (\d+)/.exec(await userNft(world, 'list', 'counter', 'inet', 'leak_watch', name))?.[1] ?? NaN);
  return {
    leaked: async () => ({ ipv4: await packets('leaked4'), ipv6: await packets('leaked6') }),
    reset: async () => {
      await userNft(world, 'reset', 'counters', 'table', 'inet', 'leak_watch');
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
