/**
 * Household sharing for real, as root, in network namespaces this test creates and removes: the
 * app (`npm run cli -- connect --share ADDRESS`, the real Xray 26.3.27) runs in the "user
 * machine" namespace of the system-wide world, and a third namespace, a "LAN device" joined to
 * the user machine alone by its own link (a TV with no other way out), uses the shared proxies.
 * With the household's credentials it reaches the world's site through the server (the site sees
 * the server's exit address); without them, or with wrong ones, it gets 407 or a SOCKS auth
 * failure and the server is asked for nothing; the proxies listen on loopback and the chosen
 * address only, and a public address is refused even when asked for.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../app/tunnel/testing/processes';
import { SHARING_CREDENTIALS_FILE } from '../../app/sharing/credentials';
import { ADDRESSES, namespacesAvailable } from '../system-wide/netns';
import { exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';

const exec = promisify(execFile);
/** The user machine's address on the household LAN, and the TV's. */
const HOME = { machine: '10.77.0.1', device: '10.77.0.2' };
const HTTP_PORT = 18809;
const SOCKS_PORT = 18808;

let world: SystemWideWorld;
let device: string;

/** curl in the LAN device's namespace: what it printed (body, or the status with -w), and curl's exit code. */
async function curlFromDevice(args: string[]): Promise<{ out: string; code: number }> {
  try {
    const { stdout } = await exec('ip', ['netns', 'exec', device, 'curl', '-s', '-m', '5', ...args], { timeout: 15_000 });
    return { out: stdout.trim(), code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { out: String(failed.stdout ?? '').trim(), code: Number(failed.code ?? -1) };
  }
}

const accessLines = async () => (await readFile(world.accessLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

describe.skipIf(!namespacesAvailable())('household sharing from a LAN device (root, namespaces)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld();
    device = `sfv-tv-${randomBytes(3).toString('hex')}`;
    const [inUser, inDevice] = [`sfh${device.slice(-6)}`, `sft${device.slice(-6)}`];
    await exec('ip', ['netns', 'add', device]);
    await exec('ip', ['link', 'add', inUser, 'type', 'veth', 'peer', 'name', inDevice]);
    await exec('ip', ['link', 'set', inUser, 'netns', world.topology.user]);
    await exec('ip', ['link', 'set', inDevice, 'netns', device]);
    await exec('ip', ['-n', world.topology.user, 'addr', 'add', `${HOME.machine}/24`, 'dev', inUser]);
    await exec('ip', ['-n', device, 'addr', 'add', `${HOME.device}/24`, 'dev', inDevice]);
    for (const [ns, dev] of [
      [world.topology.user, inUser],
      [device, inDevice],
      [device, 'lo'],
    ] as const) {
      await exec('ip', ['-n', ns, 'link', 'set', dev, 'up']);
    }
  });

  afterAll(async () => {
    if (device) await exec('ip', ['netns', 'delete', device]).catch(() => undefined);
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    expect(stdout).not.toContain(device);
  });

  it('refuses a public address before anything starts, even when asked for', async () => {
    // The user machine's own address toward the world (every other address is the unit tests').
    const app = startApp(world, join(world.dir, 'data-public'), ['--http-port', String(HTTP_PORT), '--socks-port', String(SOCKS_PORT), '--share', ADDRESSES.user]);
    app.ready.catch(() => undefined);
    expect(await exited(app.child)).toBe(2);
    expect(app.output()).toContain(`--share: ${ADDRESSES.user} is not a private LAN address`);
  });

  it('lets the household in with its credentials, and no one without them', async () => {
    const dataDir = join(world.dir, 'data-share');
    const app = startApp(world, dataDir, ['--http-port', String(HTTP_PORT), '--socks-port', String(SOCKS_PORT), '--share', HOME.machine]);
    await app.ready;
    const credentialsFile = join(dataDir, 'cli', SHARING_CREDENTIALS_FILE);
    await waitUntil(() => app.output().includes('sharing: '), 5000);
    expect(app.output()).toContain(`sharing: http://${HOME.machine}:${HTTP_PORT} socks5://${HOME.machine}:${SOCKS_PORT} (username and password in ${credentialsFile})`);
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    const { username, password } = JSON.parse(await readFile(credentialsFile, 'utf8')) as { username: string; password: string };
    expect(app.output()).not.toContain(password);

    // The TV has no way out but the shared proxies.
    expect((await curlFromDevice(['--noproxy', '*', '-m', '1', TARGET_URL])).code).not.toBe(0);

    // With the credentials: through the server (the site sees its exit), over HTTP and SOCKS5.
    const http = `http://${username}:${password}@${HOME.machine}:${HTTP_PORT}`;
    const socks = `socks5h://${username}:${password}@${HOME.machine}:${SOCKS_PORT}`;
    expect(await curlFromDevice(['-x', http, TARGET_URL])).toEqual({ out: ADDRESSES.exit, code: 0 });
    expect(await curlFromDevice(['-p', '-x', http, TARGET_URL])).toEqual({ out: ADDRESSES.exit, code: 0 });
    expect(await curlFromDevice(['-x', socks, TARGET_URL])).toEqual({ out: ADDRESSES.exit, code: 0 });

    // Without them, or with wrong ones: 407 or a SOCKS auth failure, and the server hears nothing.
    const before = await accessLines();
    const status = ['-o', '/dev/null', '-w', '%{http_code}'];
    const wrongHttp = `http://${username}:wrong${password}@${HOME.machine}:${HTTP_PORT}`;
    expect(await curlFromDevice([...status, '-x', `http://${HOME.machine}:${HTTP_PORT}`, TARGET_URL])).toEqual({ out: '407', code: 0 });
    expect(await curlFromDevice([...status, '-x', wrongHttp, TARGET_URL])).toEqual({ out: '407', code: 0 });
    // A CONNECT is refused with 407 too (curl exits 56: the tunnel was not set up).
    const connect = await curlFromDevice(['-v', '-p', '-x', wrongHttp, TARGET_URL]).catch(() => null);
    expect(connect?.code).toBe(56);
    // curl 97: the SOCKS5 proxy refused the login.
    expect((await curlFromDevice(['-x', `socks5h://${HOME.machine}:${SOCKS_PORT}`, TARGET_URL])).code).toBe(97);
    expect((await curlFromDevice(['-x', `socks5h://${username}:wrong@${HOME.machine}:${SOCKS_PORT}`, TARGET_URL])).code).toBe(97);
    expect((await curlFromDevice(['-x', `socks4://${HOME.machine}:${SOCKS_PORT}`, TARGET_URL])).code).toBe(97);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await accessLines()).toBe(before);

    // The SOCKS refusals are counted from what Xray logs; a refused HTTP login leaves no line to count.
    expect(await waitUntil(() => /a login was refused \(3 so far\)/.test(app.output()), 3000)).toBe(true);
    expect(app.output()).not.toMatch(/a login was refused \(4 so far\)/);

    // Even with the credentials, the machine's own loopback services are out of reach (the block answers 403).
    expect(await curlFromDevice([...status, '-x', http, `http://127.0.0.1:${HTTP_PORT}/`])).toEqual({ out: '403', code: 0 });

    // The machine's own programs keep the loopback proxies without a password.
    const local = await world.inUser(['curl', '-s', '-m', '5', '-x', `http://127.0.0.1:${HTTP_PORT}`, TARGET_URL]);
    expect(local).toBe(ADDRESSES.exit);

    // Listening: loopback and the chosen LAN address only, never a wildcard or the public address.
    const { stdout } = await exec('ip', ['netns', 'exec', world.topology.user, 'ss', '-Hlntu']);
    const ours = stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[4] ?? '')
      .filter((local) => local.endsWith(`:${HTTP_PORT}`) || local.endsWith(`:${SOCKS_PORT}`));
    expect(new Set(ours)).toEqual(new Set([`127.0.0.1:${HTTP_PORT}`, `127.0.0.1:${SOCKS_PORT}`, `${HOME.machine}:${HTTP_PORT}`, `${HOME.machine}:${SOCKS_PORT}`]));

    app.child.kill('SIGTERM');
    expect(await exited(app.child)).toBe(0);
  });
});
