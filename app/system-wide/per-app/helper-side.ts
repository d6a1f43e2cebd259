/**
 * What the privileged helper does for per-app choice under TPROXY (linux/helper.ts serves the
 * requests): from the app's request (uids, programs by path or name) and what this machine has,
 * the list's cgroup leaf and the processes moved into it (cgroup-follower.ts), and the `NftPerApp`
 * the capture rules are built from; and all of it taken back when the capture goes — also what a
 * killed helper left (processes in a leaf go to the hierarchy's root then: where they came from
 * died with the helper), the leaf, and a hierarchy it mounted itself.
 */
import { mkdir, readFile, rmdir } from 'node:fs/promises';
import type { ArgvCommand } from '../linux/policy/capture-plan';
import { CgroupFollower, moveTo, processesIn } from './cgroup-follower';
import { cgroupPlacement, ownCgroup2Mount, parseMountinfo, perAppCgroupName, perAppCgroupPaths } from './policy/cgroup-placement';
import type { NftPerApp, PerAppRequest } from './policy/nft-rules';

type ArgvRunner = (command: ArgvCommand) => Promise<{ code: number | null; stderr: string }>;

export interface PerAppApplied {
  plan: NftPerApp | null;
  /** In words, for the reply: how the programs are matched here. */
  matched: string;
  skipped: { entry: string; reason: string }[];
}

/** What the helper reads of the machine (a test gives its own). */
export interface CgroupSystem {
  mountinfo(): Promise<string>;
  filesystems(): Promise<string>;
}

const realSystem: CgroupSystem = {
  mountinfo: () => readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
  filesystems: () => readFile('/proc/filesystems', 'utf8').catch(() => ''),
};

const LISTS = ['bypass', 'only'] as const;
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class PerAppCgroups {
  private follower: CgroupFollower | null = null;
  private readonly name: string;

  constructor(
    private readonly run: ArgvRunner,
    private readonly system: CgroupSystem = realSystem,
    name: string | undefined = process.env.STEADFAST_CGROUP_NAME,
  ) {
    this.name = perAppCgroupName(name);
  }

  /** Leftovers first (remove), then the leaf and its processes; programs that cannot be matched here are said so. */
  async apply(request: PerAppRequest | null | undefined, log: (line: string) => void = () => undefined): Promise<PerAppApplied> {
    if (!request) return { plan: null, matched: '', skipped: [] };
    const uidsOnly = (skipped: PerAppApplied['skipped']): PerAppApplied => ({
      plan: request.mode === 'bypass' && request.uids.length === 0 ? null : { mode: request.mode, uids: request.uids, cgroup: null },
      matched: '',
      skipped,
    });
    if (request.programs.length === 0) return uidsOnly([]);
    const placement = cgroupPlacement(await this.system.mountinfo(), await this.system.filesystems(), this.name);
    const refuse = (reason: string) => uidsOnly(request.programs.map((entry) => ({ entry, reason })));
    if (placement.kind === 'unavailable') return refuse(placement.reason);
    if (placement.kind === 'mount-own') {
      await mkdir(placement.mountPoint, { recursive: true, mode: 0o755 });
      const mounted = await this.run({ file: 'mount', args: ['-t', 'cgroup2', 'none', placement.mountPoint] });
      if (mounted.code !== 0) {
        await rmdir(placement.mountPoint).catch(() => undefined);
        return refuse(`no cgroup v2 hierarchy is mounted and mounting one failed (${mounted.stderr.trim().slice(0, 300) || `exit ${String(mounted.code)}`}): the TPROXY capture can match a program only by its user (uid:N); or use the TUN capture`);
      }
    }
    const paths = perAppCgroupPaths(placement.mountPoint, this.name, request.mode);
    try {
      await mkdir(paths.dir, { recursive: true });
    } catch (error) {
      return refuse(`its cgroup ${paths.dir} could not be made (${errorText(error)})`);
    }
    this.follower = new CgroupFollower({ mountPoint: placement.mountPoint, v2Path: paths.v2Path, programs: request.programs, onMoved: (pid, exe) => log(`per-app: moved ${exe} (pid ${pid}) into ${paths.v2Path}`) });
    await this.follower.start();
    const where = placement.kind === 'mount-own' ? `a cgroup v2 hierarchy mounted for this session at ${placement.mountPoint}` : `cgroup v2 at ${placement.mountPoint}${placement.beside ? ` beside ${placement.beside}` : ''}`;
    return { plan: { mode: request.mode, uids: request.uids, cgroup: paths.nftPath }, matched: `${request.programs.join(', ')} by cgroup ${paths.v2Path} (${where})`, skipped: [] };
  }

  /**
   * Everything per-app choice put on the machine, gone; returns what could not be removed. After
   * a killed helper (`mountIfNone`), a machine that shows no cgroup v2 mounted may still hold the
   * cgroups a hierarchy mounted for that session had: one is mounted for the sweep, and unmounted.
   */
  async remove(o: { mountIfNone?: boolean } = {}): Promise<string[]> {
    const follower = this.follower;
    this.follower = null;
    await follower?.stop();
    const failures: string[] = [];
    const own = ownCgroup2Mount(this.name);
    let mounts = this.hierarchies(await this.system.mountinfo());
    if (mounts.length === 0 && o.mountIfNone && cgroupPlacement('', await this.system.filesystems(), this.name).kind === 'mount-own') {
      await mkdir(own, { recursive: true, mode: 0o755 }).catch(() => undefined);
      await this.run({ file: 'mount', args: ['-t', 'cgroup2', 'none', own] });
      mounts = this.hierarchies(await this.system.mountinfo());
    }
    for (const mountPoint of mounts) {
      const top = `${mountPoint}/${this.name}`;
      for (const list of LISTS) {
        const leaf = `${top}/${list}`;
        // Only a killed helper leaves processes here: where they came from is not known any more.
        for (const pid of await processesIn(leaf)) await moveTo(mountPoint, '/', pid);
        await removeDir(leaf, failures);
      }
      await removeDir(top, failures);
    }
    if (mounts.includes(own)) {
      const unmounted = await this.run({ file: 'umount', args: [own] });
      if (unmounted.code !== 0) failures.push(`umount ${own}: ${unmounted.stderr.trim() || `exit ${String(unmounted.code)}`}`);
      else await removeDir(own, failures);
    }
    return failures;
  }

  private hierarchies(mountinfo: string): string[] {
    return parseMountinfo(mountinfo)
      .filter((m) => m.fsType === 'cgroup2' && m.root === '/')
      .map((m) => m.mountPoint);
  }
}

async function removeDir(dir: string, failures: string[]): Promise<void> {
  // A process that exited a moment ago can keep a cgroup busy for a moment.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY' || attempt === 4) {
        failures.push(`rmdir ${dir}: ${errorText(error)}`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
