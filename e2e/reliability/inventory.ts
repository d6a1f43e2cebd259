/**
 * What an engine holds open, read from /proc: its cores (by the config file each one runs, so the
 * tunnel, the prober and a reachability vantage core can be told apart), their `sh` guards, the
 * sockets they listen on, and this process's own descriptors and libuv handles. The reliability
 * tests take one before and after each fault; the soak samples it over time.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { descendants, type Listener, listenersOf } from '../lab/proc-net';

export type CoreRole = 'tunnel' | 'prober' | 'vantage' | 'other';

export interface CoreInfo {
  pid: number;
  role: CoreRole;
  /** The config file it runs (basename). */
  config: string;
  /** TCP sockets it listens on. */
  listeners: number;
}

export interface Inventory {
  /** Core processes whose command line names a config in `<dataDir>/runtime` (guards excluded). */
  cores: CoreInfo[];
  /** `sh` guards supervising those cores. */
  guards: number[];
  /** TCP listeners held by the cores. */
  coreListeners: Listener[];
  /** TCP listeners held by `pid` itself (a headless host, a proxy of the app's own). */
  ownListeners: Listener[];
  /** Open descriptors of `pid`, and how many of them are sockets. */
  fds: number;
  socketFds: number;
}

function cmdlineOf(pid: number): string[] | null {
  try {
    const parts = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (parts.at(-1) === '') parts.pop();
    return parts.length === 0 ? null : parts;
  } catch {
    return null;
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

function roleOf(config: string): CoreRole {
  if (config === 'tunnel.json') return 'tunnel';
  if (config.startsWith('prober-')) return 'prober';
  if (config.startsWith('vantage-')) return 'vantage';
  return 'other';
}

/** Every live process (anywhere on the machine) whose command line mentions `runtimeDir`. */
export function coreProcesses(runtimeDir: string): { cores: CoreInfo[]; guards: number[] } {
  const cores: CoreInfo[] = [];
  const guards: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const cmdline = cmdlineOf(pid);
    if (!cmdline || !cmdline.some((part) => part.includes(runtimeDir)) || isZombie(pid)) continue;
    if (basename(cmdline[0] ?? '') === 'sh') {
      guards.push(pid);
      continue;
    }
    const configArg = cmdline.find((part) => part.startsWith(runtimeDir)) ?? '';
    const config = basename(configArg);
    cores.push({ pid, role: roleOf(config), config, listeners: listenersOf([pid]).length });
  }
  return { cores, guards };
}

function fdTargets(pid: number): string[] {
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const fd of fds) {
    try {
      out.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // closed while we looked
    }
  }
  return out;
}

export function inventory(dataDir: string, pid = process.pid): Inventory {
  const { cores, guards } = coreProcesses(join(dataDir, 'runtime'));
  const targets = fdTargets(pid);
  return {
    cores,
    guards,
    coreListeners: listenersOf(cores.map((c) => c.pid)),
    ownListeners: listenersOf([pid]),
    fds: targets.length,
    socketFds: targets.filter((t) => t.startsWith('socket:')).length,
  };
}

/** Cores per role, e.g. { tunnel: 1, prober: 1 }. */
export function coreCounts(inv: Inventory): Partial<Record<CoreRole, number>> {
  const counts: Partial<Record<CoreRole, number>> = {};
  for (const core of inv.cores) counts[core.role] = (counts[core.role] ?? 0) + 1;
  return counts;
}

/** libuv handles and requests of this process, counted by kind (TCPSocketWrap, Timeout, …). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/**
 * Descendant processes of `pid` that are still alive (zombies excluded), without tsx's esbuild
 * service: the TypeScript loader starts it, not the app.
 */
export function liveDescendants(pid = process.pid): number[] {
  return descendants(pid).filter((child) => !isZombie(child) && !basename(cmdlineOf(child)?.[0] ?? '').startsWith('esbuild'));
}
