/**
 * The helper's side of programs by path or name under TPROXY (run as root): nftables knows a
 * socket only by its owner and cgroup, so the processes a list names are moved into the list's
 * cgroup leaf — the running ones when the capture is applied, and every new one within one scan
 * (SCAN_INTERVAL_MS) of its start, for as long as the capture is in place. A process's children
 * start where it is. When the capture goes, each moved process goes back to the cgroup it came
 * from (or the nearest one of its ancestors that still exists), so nothing of this outlives the app.
 *
 * What this cannot do: a socket keeps the cgroup it was made in, so connections a program opened
 * before it was moved keep going the way they went; and a new program's connections in its first
 * moments, before the next scan sees it, go the other way. Linux tells a root process of every
 * exec at once only through netlink or eBPF, which Node cannot open; a scan of /proc is what is
 * left (what it costs, and how soon a new program is moved: `npm run bench -- per-app-scan`).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { open, readFile, realpath, writeFile } from 'node:fs/promises';
import { isListedProcess, needsCommandLines, type ProgramTargets, programTargets, type ResolvedPath, shebangInterpreter } from './policy/program-match';

export const SCAN_INTERVAL_MS = 200;

export interface FollowerOptions {
  /** The hierarchy's mount point and the leaf's path in it (`/steadfast-vpn/only`). */
  mountPoint: string;
  v2Path: string;
  /** The list's path and name entries. */
  programs: readonly string[];
  intervalMs?: number;
  proc?: string;
  /** Told of a process moved in (for the log). */
  onMoved?: (pid: number, exe: string) => void;
}

/** A read of /proc that may find the process gone (or not ours to read): the fallback then. */
function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** The cgroup v2 path of a process (`0::/path`), or null when it is gone. */
export async function cgroupOf(pid: number, proc = '/proc'): Promise<string | null> {
  const text = await readFile(`${proc}/${pid}/cgroup`, 'utf8').catch(() => null);
  const line = text?.split('\n').find((l) => l.startsWith('0::'));
  return line ? line.slice(3) : null;
}

/** Moves a process to a cgroup (its whole thread group); false when it or the cgroup is gone. */
export async function moveTo(mountPoint: string, v2Path: string, pid: number): Promise<boolean> {
  return writeFile(`${mountPoint}${v2Path === '/' ? '' : v2Path}/cgroup.procs`, String(pid)).then(
    () => true,
    () => false,
  );
}

/** Back where it came from, or to the nearest existing ancestor of that (a scope systemd removed when it emptied). */
export async function moveBack(mountPoint: string, origin: string, pid: number): Promise<boolean> {
  for (let path = origin; ; path = path.slice(0, Math.max(1, path.lastIndexOf('/')))) {
    if (await moveTo(mountPoint, path, pid)) return true;
    if (path === '/') return false;
  }
}

/** The processes in a cgroup leaf. */
export async function processesIn(dir: string): Promise<number[]> {
  const text = await readFile(`${dir}/cgroup.procs`, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

/** A file's first line when it starts with `#!` (a script), else null. */
async function shebangLine(path: string): Promise<string | null> {
  const file = await open(path, 'r').catch(() => null);
  if (!file) return null;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString('utf8');
    return text.startsWith('#!') ? text.split('\n')[0]! : null;
  } catch {
    return null;
  } finally {
    await file.close();
  }
}

/** The helper runs as root with a plain PATH (pkexec sets one); `env` in a shebang finds its program there. */
const SEARCH_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

async function interpreterOf(script: string): Promise<string | null> {
  const line = await shebangLine(script);
  const interpreter = line ? shebangInterpreter(line) : null;
  if (!interpreter) return null;
  const candidates = interpreter.onPath ? SEARCH_PATH.map((dir) => `${dir}/${interpreter.program}`) : [interpreter.program];
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => null);
    if (real) return real;
  }
  return null;
}

export class CgroupFollower {
  /** Where each moved process came from. */
  private readonly origins = new Map<number, string>();
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly o: FollowerOptions) {}

  get leaf(): string {
    return `${this.o.mountPoint}${this.o.v2Path}`;
  }

  /** The first scan is done when this resolves: the running programs are in the leaf. */
  async start(): Promise<void> {
    await this.scan();
    const tick = () => {
      if (this.stopped) return;
      this.scanning = this.scan().finally(() => {
        this.scanning = null;
        if (!this.stopped) this.timer = setTimeout(tick, this.o.intervalMs ?? SCAN_INTERVAL_MS);
      });
    };
    this.timer = setTimeout(tick, this.o.intervalMs ?? SCAN_INTERVAL_MS);
  }

  /** No more scans; every process in the leaf goes back (a child born in it, where its nearest moved ancestor came from). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.scanning;
    const proc = this.o.proc ?? '/proc';
    for (const pid of await processesIn(this.leaf)) {
      const origin = this.origins.get(pid) ?? (await this.ancestorOrigin(pid, proc)) ?? '/';
      await moveBack(this.o.mountPoint, origin, pid);
    }
    this.origins.clear();
  }

  /**
   * One pass over /proc: every named process not yet in the leaf is moved in. The pass over the
   * processes is synchronous: asynchronous reads, each a round trip through the thread pool, took
   * 3.6 times the CPU (2.9 against 0.8 ms for 197 processes, measured here), every 200 ms; the
   * helper has nothing else to do meanwhile but answer the app, which waits a millisecond at most.
   */
  async scan(): Promise<void> {
    const proc = this.o.proc ?? '/proc';
    const targets = await this.targets();
    const withArgs = needsCommandLines(targets);
    const found: { pid: number; exe: string }[] = [];
    for (const name of readOr(() => readdirSync(proc), [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      // Kernel threads have no executable; a process gone meanwhile has none either.
      const exe = readOr(() => readlinkSync(`${proc}/${name}/exe`), null);
      if (exe === null) continue;
      const argv = withArgs ? readOr(() => readFileSync(`${proc}/${name}/cmdline`, 'utf8'), '').split('\0') : [];
      if (isListedProcess(targets, exe, argv)) found.push({ pid: Number(name), exe });
    }
    for (const { pid, exe } of found) {
      const origin = await cgroupOf(pid, proc);
      if (origin === null || origin === this.o.v2Path) continue;
      if (this.stopped) return;
      if (await moveTo(this.o.mountPoint, this.o.v2Path, pid)) {
        this.origins.set(pid, origin);
        this.o.onMoved?.(pid, exe);
      }
    }
    for (const pid of this.origins.keys()) if (readOr(() => readlinkSync(`${proc}/${pid}/exe`), null) === null) this.origins.delete(pid);
  }

  /** Resolved again on every scan: an app installed or upgraded while connected is followed too. */
  private async targets(): Promise<ProgramTargets> {
    const resolved = new Map<string, ResolvedPath>();
    for (const entry of this.o.programs) {
      if (!entry.startsWith('/')) continue;
      const real = await realpath(entry).catch(() => null);
      const script = real !== null && (await shebangLine(real)) !== null;
      resolved.set(entry, script ? { real, interpreter: await interpreterOf(real) } : { real });
    }
    return programTargets(this.o.programs, resolved);
  }

  private async ancestorOrigin(pid: number, proc: string): Promise<string | null> {
    let current = pid;
    for (let depth = 0; depth < 32; depth += 1) {
      const stat = await readFile(`${proc}/${current}/stat`, 'utf8').catch(() => null);
      // The parent's pid is the second field after the command's closing parenthesis.
      const parent = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : NaN;
      if (!Number.isInteger(parent) || parent <= 1) return null;
      const origin = this.origins.get(parent);
      if (origin) return origin;
      current = parent;
    }
    return null;
  }
}
