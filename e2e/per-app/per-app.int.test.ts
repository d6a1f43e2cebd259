/**
 * Per-app choice in system-wide mode for real, as root, in network namespaces this test creates
 * and removes: the app (`npm run cli -- connect --mode system-wide`, nftables TPROXY) runs in the
 * "user machine" namespace, and two programs there run under different identities — root, and
 * uid 1001 (the TPROXY capture knows programs by owner or cgroup; this machine mounts no cgroup
 * v2, so the owner it is). The world's site answers with the address it was reached from.
 * - "bypass" uid 1001: its curl reaches the site from the user's own address, root's from the
 *   server's exit;
 * - "only" uid 1001: the reverse.
 * Nothing of the capture is left after each run.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../app/tunnel/testing/processes';
import { ADDRESSES, captureTraces, namespacesAvailable } from '../system-wide/netns';
import { exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';

let world: SystemWideWorld;
const OTHER_UID = '1001';

/** What the site says of a curl in the user namespace, as root or as uid 1001. */
async function seenFrom(as: 'root' | 'other'): Promise<string | null> {
  const curl = ['curl', '-s', '--noproxy', '*', '-m', '3', TARGET_URL];
  const command = as === 'root' ? curl : ['setpriv', '--reuid', OTHER_UID, '--regid', OTHER_UID, '--clear-groups', ...curl];
  return world.inUser(command, 10_000).catch(() => null);
}

async function runWith(list: '--bypass-app' | '--only-app', check: () => Promise<void>): Promise<string> {
  const app = startApp(world, join(world.dir, `data${list}`), ['--mode', 'system-wide', list, `uid:${OTHER_UID}`]);
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

describe.skipIf(!namespacesAvailable())('per-app choice under TPROXY capture (root, namespaces)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld();
    expect(await waitUntil(async () => (await seenFrom('root')) === ADDRESSES.user, 5000)).toBe(true);
    expect(await seenFrom('other')).toBe(ADDRESSES.user);
  });

  afterAll(async () => {
    await world?.close();
  });

  it('"bypass": the listed user’s program leaves from the user’s own address, the other through the server', async () => {
    const output = await runWith('--bypass-app', async () => {
      expect(await seenFrom('root')).toBe(ADDRESSES.exit);
      expect(await seenFrom('other')).toBe(ADDRESSES.user);
    });
    expect(output).toMatch(/system-wide: applied .*bypassing the VPN: uid 1001/);
  });

  it('"only": the listed user’s program goes through the server, the other leaves from the user’s own address', async () => {
    const output = await runWith('--only-app', async () => {
      expect(await seenFrom('other')).toBe(ADDRESSES.exit);
      expect(await seenFrom('root')).toBe(ADDRESSES.user);
    });
    expect(output).toMatch(/system-wide: applied .*only through the VPN: uid 1001/);
  });
});
