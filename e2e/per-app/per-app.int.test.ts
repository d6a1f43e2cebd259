/**
 * Per-app choice in system-wide mode for real, as root, in network namespaces this test creates
 * and removes: the app (`npm run cli -- connect --mode system-wide`, nftables TPROXY) runs in the
 * "user machine" namespace; the world's site answers with the address it was reached from.
 * - by owner: a program of root and one of uid 1001 — "bypass uid 1001": uid 1001 reaches the site
 *   from the user's own address, root from the server's exit; "only": the reverse;
 * - by program, a path or a program name: two programs of the same user (root) — a program of its
 *   own (a copy of bash named `cgroup-probe`, asking the site through its own /dev/tcp socket
 *   whenever told to) and curl. The app's helper moves the listed program into the list's cgroup
 *   v2 leaf, the copy running when the capture goes on and one started after, and nftables
 *   matches its sockets there (`socket cgroupv2`). Where that cgroup lives is the machine's to
 *   decide (per-app/policy/cgroup-placement.ts), and both of this machine's answers run: the app
 *   entered by `nsenter --net` sees cgroup v2 beside v1 at /sys/fs/cgroup/unified; entered by `ip
 *   netns exec` (a fresh /sys, no cgroup mounted) its helper mounts a hierarchy of its own. The
 *   test asks the same decision from the app's side and checks the app says it. After the app,
 *   the programs are back in the cgroup they came from and no cgroup of the app's is left.
 * Nothing of the capture is left after each run.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cgroupOf } from '../../app/system-wide/per-app/cgroup-follower';
import { type CgroupPlacement, cgroupPlacement } from '../../app/system-wide/per-app/policy/cgroup-placement';
import { processesMentioning, waitUntil } from '../../app/tunnel/testing/processes';
import { ADDRESSES, captureTraces, namespacesAvailable } from '../system-wide/netns';
import { exited, type NamespaceEntry, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';

const exec = promisify(execFile);

let world: SystemWideWorld;
const OTHER_UID = '1001';
/** The app's cgroup for this run (the product's name plus a tag: another run on this machine keeps apart). */
const CGROUP_NAME = `steadfast-vpn-cgroup-${randomBytes(3).toString('hex')}`;
/** The machine's own cgroup v2 hierarchy, as this test sees it: where a cgroup left behind would show. */
const HOST_PLACEMENT = cgroupPlacement(readFileSync('/proc/self/mountinfo', 'utf8'), readFileSync('/proc/filesystems', 'utf8'));
const PROBE_NAME = 'cgroup-probe';
let probePath: string;

/** What the site says of a curl in the user namespace, as root or as uid 1001. */
async function seenFrom(as: 'root' | 'other'): Promise<string | null> {
  const curl = ['curl', '-s', '--noproxy', '*', '-m', '3', TARGET_URL];
  const command = as === 'root' ? curl : ['setpriv', '--reuid', OTHER_UID, '--regid', OTHER_UID, '--clear-groups', ...curl];
  return world.inUser(command, 10_000).catch(() => null);
}

/** The listed program: asks the site itself (its own socket, from its own cgroup) once per line it is given. */
interface Probe {
  child: ChildProcess;
  pid: number;
  ask(): Promise<string>;
}

const PROBE_SCRIPT = `
while read -r _; do
  if exec 3<>/dev/tcp/${ADDRESSES.target}/8080; then
    printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3
    last=''; while IFS= read -r -t 5 line <&3; do last=$line; done
    exec 3<&-
    echo "seen:$last"
  else
    echo 'seen:failed'
  fi
done`;

async function startProbe(): Promise<Probe> {
  // `ip netns exec` runs the program in its own place: the child is the program itself.
  const child = spawn('ip', ['netns', 'exec', world.topology.user, probePath, '-c', PROBE_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers: string[] = [];
  const waiting: ((answer: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('seen:')) return;
    const waiter = waiting.shift();
    if (waiter) waiter(line.slice(5));
    else answers.push(line.slice(5));
  });
  const pid = child.pid!;
  expect(await waitUntil(async () => readlink(`/proc/${pid}/exe`).then((exe) => exe === probePath, () => false), 5000)).toBe(true);
  return {
    child,
    pid,
    ask: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the probe did not answer')), 10_000);
        waiting.push((answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        child.stdin!.write('\n');
      }),
  };
}

async function runWith(args: string[], check: () => Promise<void>, enter: NamespaceEntry = 'ip-netns-exec', dataDir = join(world.dir, `data-${enter}-${args.join('-').replace(/[^a-z0-9]+/gi, '_')}`)): Promise<string> {
  const app = startApp(world, dataDir, ['--mode', 'system-wide', ...args], world.subscriptionFile, { env: { STEADFAST_CGROUP_NAME: CGROUP_NAME }, enter });
  try {
    await app.ready;
    await check();
    return app.output();
  } finally {
    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
    expect(await captureTraces(world.topology.user)).toEqual([]);
  }
}

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The cgroup placement as the app in the user namespace sees the machine, entered this way. */
async function placementSeen(enter: NamespaceEntry): Promise<CgroupPlacement> {
  const prefix = enter === 'nsenter' ? ['nsenter', `--net=/run/netns/${world.topology.user}`] : ['ip', 'netns', 'exec', world.topology.user];
  const { stdout } = await exec(prefix[0]!, [...prefix.slice(1), 'cat', '/proc/self/mountinfo']);
  return cgroupPlacement(stdout, readFileSync('/proc/filesystems', 'utf8'), CGROUP_NAME);
}

const placementWords = (p: CgroupPlacement) =>
  p.kind === 'mounted' ? `cgroup v2 at ${p.mountPoint}${p.beside ? ` beside ${p.beside}` : ''}` : p.kind === 'mount-own' ? `a cgroup v2 hierarchy mounted for this session at ${p.mountPoint}` : '';

describe.skipIf(!namespacesAvailable())('per-app choice under TPROXY capture (root, namespaces)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld({ label: 'cgroup' });
    mkdirSync(join(world.dir, 'cgroup-bin'));
    probePath = join(world.dir, 'cgroup-bin', PROBE_NAME);
    copyFileSync('/bin/bash', probePath);
    expect(await waitUntil(async () => (await seenFrom('root')) === ADDRESSES.user, 5000)).toBe(true);
    expect(await seenFrom('other')).toBe(ADDRESSES.user);
  });

  afterAll(async () => {
    await world?.close();
  });

  it('"bypass" uid: the listed user’s program leaves from the user’s own address, the other through the server', async () => {
    const output = await runWith(['--bypass-app', `uid:${OTHER_UID}`], async () => {
      expect(await seenFrom('root')).toBe(ADDRESSES.exit);
      expect(await seenFrom('other')).toBe(ADDRESSES.user);
    });
    expect(output).toMatch(/system-wide: applied .*bypassing the VPN: uid 1001/);
  });

  it('"only" uid: the listed user’s program goes through the server, the other leaves from the user’s own address', async () => {
    const output = await runWith(['--only-app', `uid:${OTHER_UID}`], async () => {
      expect(await seenFrom('other')).toBe(ADDRESSES.exit);
      expect(await seenFrom('root')).toBe(ADDRESSES.user);
    });
    expect(output).toMatch(/system-wide: applied .*only through the VPN: uid 1001/);
  });

  it('kill -9 of the core: the program is followed again when the capture is back; kill -9 of the app: the helper puts it back and removes the cgroup', async () => {
    const running = await startProbe();
    const origin = await cgroupOf(running.pid);
    const leaf = `/${CGROUP_NAME}/only`;
    const dataDir = join(world.dir, 'data-crash');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--only-app', PROBE_NAME], world.subscriptionFile, { env: { STEADFAST_CGROUP_NAME: CGROUP_NAME }, enter: 'nsenter' });
    try {
      await app.ready;
      expect(await running.ask()).toBe(ADDRESSES.exit);
      const [core] = processesMentioning(join(dataDir, 'runtime'));
      expect(core).toBeDefined();
      process.kill(core!, 'SIGKILL');
      // The capture is lifted while the core is down (the program goes back), and applied again once it is up.
      expect(await waitUntil(async () => (await cgroupOf(running.pid)) === origin, 5000, 20)).toBe(true);
      expect(await waitUntil(async () => /system-wide: applied again/.test(app.output()), 10_000, 50)).toBe(true);
      expect(await waitUntil(async () => (await cgroupOf(running.pid)) === leaf, 3000, 20)).toBe(true);
      expect(await running.ask()).toBe(ADDRESSES.exit);
      expect(await seenFrom('root')).toBe(ADDRESSES.user);

      app.child.kill('SIGKILL');
      expect(await waitUntil(async () => (await captureTraces(world.topology.user)).length === 0 && (await cgroupOf(running.pid)) === origin, 5000, 50)).toBe(true);
      if (HOST_PLACEMENT.kind === 'mounted') expect(await waitUntil(() => !existsSync(join(HOST_PLACEMENT.mountPoint, CGROUP_NAME)), 2000)).toBe(true);
      expect(await running.ask()).toBe(ADDRESSES.user);
    } finally {
      app.child.kill('SIGKILL');
      running.child.kill('SIGKILL');
      await waitUntil(() => processesMentioning(join(dataDir, 'runtime')).length === 0, 5000);
    }
  });

  // Entered by `ip netns exec`, the killed helper's own hierarchy went with its mount namespace: the next start mounts one to sweep.
  it.each(['nsenter', 'ip-netns-exec'] as const)('the helper and the app both killed (entered by %s): the next start takes the programs out of the cgroup and removes it', async (enter) => {
    const running = await startProbe();
    const leaf = `/${CGROUP_NAME}/bypass`;
    const dataDir = join(world.dir, `data-both-killed-${enter}`);
    const env = { STEADFAST_CGROUP_NAME: CGROUP_NAME };
    const first = startApp(world, dataDir, ['--mode', 'system-wide', '--bypass-app', probePath], world.subscriptionFile, { env, enter });
    try {
      await first.ready;
      expect(await cgroupOf(running.pid)).toBe(leaf);
      const helpers = childrenOf(first.child.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('capture-helper'));
      expect(helpers).toHaveLength(1);
      // The helper first, so no watchdog is left to clean up.
      process.kill(helpers[0]!, 'SIGKILL');
      first.child.kill('SIGKILL');
      await exited(first.child);
      expect(await cgroupOf(running.pid)).toBe(leaf);
      expect(await captureTraces(world.topology.user)).not.toEqual([]);
      // The next start, without per-app choice: its clean-up of the last run's leftovers frees the program.
      const output = await runWith([], async () => {
        expect(await cgroupOf(running.pid)).toBe('/');
        if (HOST_PLACEMENT.kind === 'mounted') expect(existsSync(join(HOST_PLACEMENT.mountPoint, CGROUP_NAME))).toBe(false);
        expect(await running.ask()).toBe(ADDRESSES.exit);
      }, enter, dataDir);
      expect(output).toMatch(/the last run left system-wide capture in place/);
      expect(output).not.toMatch(/could not remove the capture a previous run left/);
    } finally {
      first.child.kill('SIGKILL');
      running.child.kill('SIGKILL');
      await waitUntil(() => processesMentioning(join(dataDir, 'runtime')).length === 0, 5000);
    }
  });

  // `ip netns exec` gives the app a fresh /sys without any cgroup mounted, so its helper mounts a
  // hierarchy of its own; `nsenter` leaves it the machine's mounts (here cgroup v2 beside v1).
  describe.each([
    ['bypass', 'its path', 'ip-netns-exec', '--bypass-app', (): string => probePath, { listed: ADDRESSES.user, other: ADDRESSES.exit }],
    ['only', 'its name', 'nsenter', '--only-app', (): string => PROBE_NAME, { listed: ADDRESSES.exit, other: ADDRESSES.user }],
    ['only', 'its path', 'ip-netns-exec', '--only-app', (): string => probePath, { listed: ADDRESSES.exit, other: ADDRESSES.user }],
    ['bypass', 'its name', 'nsenter', '--bypass-app', (): string => PROBE_NAME, { listed: ADDRESSES.user, other: ADDRESSES.exit }],
  ] as const)('"%s" by program (%s), the app entered by %s', (list, _by, enter, flag, entry, expected) => {
    it('the listed program, running before or started after, goes its way; another program of the same user the other way; nothing is left after', async () => {
      const placement = await placementSeen(enter);
      const running = await startProbe();
      const origin = await cgroupOf(running.pid);
      expect(await running.ask()).toBe(ADDRESSES.user);
      let started: Probe | null = null;
      const leaf = `/${CGROUP_NAME}/${list}`;
      try {
        const output = await runWith(
          [flag, entry()],
          async () => {
            if (placement.kind === 'unavailable') {
              // A kernel without cgroup v2: said, and the program goes as everything else does.
              expect(await running.ask()).toBe(expected.other);
              return;
            }
            expect(await cgroupOf(running.pid)).toBe(leaf);
            expect(await running.ask()).toBe(expected.listed);
            expect(await seenFrom('root')).toBe(expected.other);
            started = await startProbe();
            const probe: Probe = started;
            expect(await waitUntil(async () => (await cgroupOf(probe.pid)) === leaf, 3000)).toBe(true);
            expect(await probe.ask()).toBe(expected.listed);
            expect(await seenFrom('root')).toBe(expected.other);
          },
          enter,
        );
        if (placement.kind === 'unavailable') {
          expect(output).toMatch(new RegExp(`per-app: ${entry()} is not matched: .*no cgroup v2`));
          expect(output).toMatch(/system-wide: applied .*not matched here/);
          return;
        }
        expect(output).toContain(`${list === 'bypass' ? 'bypassing the VPN' : 'only through the VPN'}: ${entry()} by cgroup ${leaf} (${placementWords(placement)})`);
        // Nothing of it failed to go.
        expect(output).not.toMatch(/umount|rmdir/);
        // Back where they came from, and the app's cgroups gone from the machine's hierarchy.
        expect(await cgroupOf(running.pid)).toBe(origin);
        expect(await cgroupOf((started as Probe | null)!.pid)).toBe(origin);
        if (HOST_PLACEMENT.kind === 'mounted') expect(existsSync(join(HOST_PLACEMENT.mountPoint, CGROUP_NAME))).toBe(false);
        // Direct again for everyone.
        expect(await running.ask()).toBe(ADDRESSES.user);
      } finally {
        running.child.kill('SIGKILL');
        (started as Probe | null)?.child.kill('SIGKILL');
      }
    });
  });
});
