/**
 * The kill switch for real, as root, in network namespaces this test creates and removes. The app
 * (`npm run cli -- connect --auto --mode system-wide --kill-switch`) runs in the "user machine"
 * with two servers; a leak watcher — a table of this test's own, counting in the postrouting hook
 * every packet that leaves the user's outer interface for any address but the servers' — must
 * read zero through steady traffic, an Auto switch, kill -9 of the core, the network lost and
 * back, IPv6, and kill -9 of the app and the 30 s after it, while programs keep trying to reach
 * a site directly. The link has IPv6 and the site is dual-stack; the first server carries IPv6
 * (its link says `ipv6=1`), the second does not (`ipv6=0`): IPv6 goes through the one and is
 * refused at once on the other, and leaks on neither. After `npm run cli -- kill-switch off`, direct traffic works within 2 s and no
 * rule of the app is left. Then a server reached over IPv6 (its link names the world's IPv6
 * address): the core reaches it, and the watcher, allowing that one address alone, counts no
 * packet to any other, IPv4 or IPv6, steady, through a core crash and with the app killed.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IP_INFO_SERVICES } from '../../shared/settings';
import { processesMentioning, waitUntil } from '../../app/tunnel/testing/processes';
import { ADDRESSES, ADDRESSES6 as V6, captureTraces, namespacesAvailable } from './netns';
import { type LeakWatch, ourTables as ourTablesIn, watchLeaks } from './leak-watch';
import { exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from './world';

const exec = promisify(execFile);
let world: SystemWideWorld;

const TARGET6_URL = `http://[${V6.target}]:8080/`;
let watch: LeakWatch;
const leaked = () => watch.leaked();
const resetLeaks = () => watch.reset();
const ourTables = () => ourTablesIn(world);
/** The user machine's outer interface. */
const outerDevice = () => world.topology.userDevice;

/** A plain program's attempt: what the site answered (its view of the caller), or null. */
const tryCurl = async (url: string, timeoutS = 1) =>
  world
    .inUser(['curl', '-s', '--noproxy', '*', '-m', String(timeoutS), url], (timeoutS + 2) * 1000)
    .then((out) => out || null)
    .catch(() => null);

/** Programs trying to get out directly the whole time: TCP and UDP, IPv4 and IPv6. */
function keepTrying(): { stop(): Promise<{ answers: (string | null)[] }> } {
  let running = true;
  const answers: (string | null)[] = [];
  const udp = `const s=require('dgram').createSocket('udp4');s.on('error',()=>process.exit(0));s.send('hi',5353,'${ADDRESSES.target}',()=>setTimeout(()=>process.exit(0),200))`;
  const loop = (async () => {
    while (running) {
      const [v4, v6] = await Promise.all([tryCurl(TARGET_URL, 1), tryCurl(TARGET6_URL, 1)]);
      answers.push(v4, v6);
      await world.inUser([process.execPath, '-e', udp], 5000).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { answers };
    },
  };
}

async function worldSettings(dataDir: string): Promise<string> {
  const path = join(dataDir, 'world-settings.json');
  const services = [...IP_INFO_SERVICES, 'cloudflare-trace'];
  const ipInfoUrls = Object.fromEntries(services.map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
  await writeFile(path, JSON.stringify({ monitor: { ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` } }));
  return path;
}

describe.skipIf(!namespacesAvailable())('the kill switch in network namespaces (root)', () => {
  beforeAll(async () => {
    // IPv6 on the link and a dual-stack target in the world, reachable directly before the kill switch.
    world = await startSystemWideWorld({ ipv6: { firstServerCarriesIpv6: true } });
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL)) === ADDRESSES.user, 5000)).toBe(true);
    expect(await waitUntil(async () => (await tryCurl(TARGET6_URL)) === V6.user, 5000)).toBe(true);
    watch = await watchLeaks(world);
  }, 60_000);

  afterAll(async () => {
    const names = [world?.topology.user, world?.topology.world];
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    for (const name of names) if (name) expect(stdout).not.toContain(name);
  });

  it('lets nothing out but to the servers through a switch, a core crash, a lost network and the app killed, until it is turned off', async () => {
    const dataDir = join(world.dir, 'data-kill-switch');
    await mkdir(dataDir, { recursive: true });
    const profile = join(dataDir, 'profile');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--auto', '--kill-switch', '--data-dir', profile, '--test-url', `${TARGET_URL}generate_204`, '--settings', await worldSettings(dataDir)], world.twoServerSubscription);
    await app.ready;
    expect(app.output()).toMatch(/kill switch: on; allowed outside the tunnel: 1 server address\(es\)/);
    await resetLeaks();
    const figures: Record<string, unknown> = {};

    // Steady traffic: through the server, nothing else on the wire.
    const first = await tryCurl(TARGET_URL, 2);
    expect([ADDRESSES.exit, ADDRESSES.exit2]).toContain(first);
    expect(await leaked()).toEqual({ ipv4: 0, ipv6: 0 });

    // An Auto switch, programs trying all along.
    let trying = keepTrying();
    const other = first === ADDRESSES.exit ? ADDRESSES.exit2 : ADDRESSES.exit;
    world.labServers[first === ADDRESSES.exit ? 0 : 1]!.kill('SIGKILL');
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === other, 45_000, 200)).toBe(true);
    let seen = await trying.stop();
    expect(seen.answers.filter((answer) => answer !== null && answer !== ADDRESSES.exit && answer !== ADDRESSES.exit2 && answer !== V6.exit)).toEqual([]);
    figures.switch_leaked = await leaked();
    expect(figures.switch_leaked).toEqual({ ipv4: 0, ipv6: 0 });

    // kill -9 of the core: the capture is lifted while it restarts, and nothing goes direct.
    trying = keepTrying();
    const [core] = processesMentioning(join(profile, 'runtime', 'tunnel'));
    expect(core).toBeDefined();
    process.kill(core!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === other, 10_000, 100)).toBe(true);
    seen = await trying.stop();
    expect(seen.answers.filter((answer) => answer === ADDRESSES.user || answer === V6.user)).toEqual([]);
    figures.core_kill_leaked = await leaked();
    expect(figures.core_kill_leaked).toEqual({ ipv4: 0, ipv6: 0 });

    // The network lost and back (the link's routes and IPv6 address go with it and are put back,
    // as DHCP and router advertisements would).
    trying = keepTrying();
    await exec('ip', ['-n', world.topology.user, 'link', 'set', outerDevice(), 'down']);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await exec('ip', ['-n', world.topology.user, 'link', 'set', outerDevice(), 'up']);
    await exec('ip', ['-n', world.topology.user, 'route', 'replace', 'default', 'via', ADDRESSES.world]);
    await exec('ip', ['-n', world.topology.user, 'addr', 'replace', `${V6.user}/64`, 'dev', outerDevice(), 'nodad']);
    await exec('ip', ['-n', world.topology.user, '-6', 'route', 'replace', 'default', 'via', V6.world]);
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === other, 30_000, 200)).toBe(true);
    seen = await trying.stop();
    expect(seen.answers.filter((answer) => answer === ADDRESSES.user || answer === V6.user)).toEqual([]);
    figures.network_loss_leaked = await leaked();
    expect(figures.network_loss_leaked).toEqual({ ipv4: 0, ipv6: 0 });

    // IPv6 on the current server: through it when it carries IPv6 (the site sees its IPv6 exit),
    // else refused at once by the capture; TCP and UDP, and not one packet outside the tunnel.
    await resetLeaks();
    const carriesIpv6 = other === ADDRESSES.exit;
    const ipv6Answers: (string | null)[] = [];
    const ipv6Began = Date.now();
    for (let i = 0; i < 10; i++) {
      ipv6Answers.push(await tryCurl(TARGET6_URL, 2));
      await world.inUser([process.execPath, '-e', `const s=require('dgram').createSocket('udp6');s.on('error',()=>process.exit(0));s.send('hi',5353,'${V6.target}',()=>setTimeout(()=>process.exit(0),100))`], 5000).catch(() => undefined);
    }
    figures.ipv6_server_carries_ipv6 = carriesIpv6;
    figures.ipv6_attempts_ms = Date.now() - ipv6Began;
    expect(ipv6Answers).toEqual(Array.from({ length: 10 }, () => (carriesIpv6 ? V6.exit : null)));
    figures.ipv6_leaked = await leaked();
    expect(figures.ipv6_leaked).toEqual({ ipv4: 0, ipv6: 0 });

    // kill -9 of the app: the capture goes (its watchdog), the kill switch stays, for 30 s and on.
    app.child.kill('SIGKILL');
    await exited(app.child);
    expect(await waitUntil(async () => (await captureTraces(world.topology.user)).length === 0, 5000, 50)).toBe(true);
    trying = keepTrying();
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    seen = await trying.stop();
    expect(seen.answers.length).toBeGreaterThan(20);
    expect(seen.answers.filter((answer) => answer !== null)).toEqual([]);
    expect(await ourTables()).toEqual(['steadfast_killswitch']);
    figures.app_kill_30s_leaked = await leaked();
    expect(figures.app_kill_30s_leaked).toEqual({ ipv4: 0, ipv6: 0 });
    // Blocked fast: a program is refused at once, not left to time out.
    const began = Date.now();
    expect(await tryCurl(TARGET_URL, 5)).toBeNull();
    expect(await tryCurl(TARGET6_URL, 5)).toBeNull();
    figures.blocked_attempts_ms = Date.now() - began;
    expect(figures.blocked_attempts_ms).toBeLessThan(2000);

    // A later start says it is in force; `kill-switch off` opens the way within 2 s and leaves nothing.
    const cli = (...args: string[]) => world.inUser(['env', `STEADFAST_DATA_DIR=${dataDir}`, process.execPath, '--import', 'tsx', 'main/cli/index.ts', 'kill-switch', ...args], 30_000);
    expect(await cli('status')).toMatch(/^The kill switch is still on since \d{4}-/);
    const commandAt = Date.now();
    expect(await cli('off')).toBe('kill switch: off; direct traffic works again');
    const offAt = Date.now();
    figures.off_command_ms = offAt - commandAt;
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === ADDRESSES.user && (await tryCurl(TARGET6_URL, 1)) === V6.user, 2000, 50)).toBe(true);
    figures.off_to_direct_ms = Date.now() - offAt;
    expect(await ourTables()).toEqual([]);
    expect(await captureTraces(world.topology.user)).toEqual([]);
    expect(await cli('status')).toBe('The kill switch is off.');
    expect(await waitUntil(() => processesMentioning(profile).length === 0, 5000)).toBe(true);
    console.log(JSON.stringify(figures));
  }, 240_000);

  it('a server reached over IPv6: the core reaches it, and nothing leaves for any other address, IPv4 or IPv6', async () => {
    // The switch above killed the server it started on; this one is the first, alive.
    await world.reviveServer(0);
    // Only the server's IPv6 address may be on the wire: every IPv4 packet out is a leak here.
    const v6Watch = await watchLeaks(world, { servers: { ipv4: [], ipv6: [V6.world] }, table: 'leak_watch_v6_server' });
    const dataDir = join(world.dir, 'data-kill-switch-v6-server');
    await mkdir(dataDir, { recursive: true });
    const profile = join(dataDir, 'profile');
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--auto', '--kill-switch', '--data-dir', profile, '--test-url', `${TARGET_URL}generate_204`, '--settings', await worldSettings(dataDir)], world.ipv6AddressedSubscription);
    await app.ready;
    expect(app.output()).toMatch(/kill switch: on; allowed outside the tunnel: 1 server address\(es\)/);
    const figures: Record<string, unknown> = {};
    try {
      await v6Watch.reset();
      // Through the server, which the core reaches over IPv6: the site sees its exits.
      expect(await tryCurl(TARGET_URL, 2)).toBe(ADDRESSES.exit);
      expect(await tryCurl(TARGET6_URL, 2)).toBe(V6.exit);
      // The core's own connection to the server is on the IPv6 link.
      expect(await world.inUser(['ss', '-Htn', 'state', 'established', 'dst', `[${V6.world}]:20000`])).not.toBe('');
      let trying = keepTrying();
      await new Promise((resolve) => setTimeout(resolve, 5000));
      let seen = await trying.stop();
      expect(seen.answers.filter((answer) => answer !== ADDRESSES.exit && answer !== V6.exit)).toEqual([]);
      figures.v6_server_steady_leaked = await v6Watch.leaked();
      expect(figures.v6_server_steady_leaked).toEqual({ ipv4: 0, ipv6: 0 });

      // kill -9 of the core: while it restarts, nothing goes direct on either family.
      trying = keepTrying();
      const [core] = processesMentioning(join(profile, 'runtime', 'tunnel'));
      expect(core).toBeDefined();
      process.kill(core!, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === ADDRESSES.exit, 10_000, 100)).toBe(true);
      seen = await trying.stop();
      expect(seen.answers.filter((answer) => answer === ADDRESSES.user || answer === V6.user)).toEqual([]);
      figures.v6_server_core_kill_leaked = await v6Watch.leaked();
      expect(figures.v6_server_core_kill_leaked).toEqual({ ipv4: 0, ipv6: 0 });

      // The app gone: still nothing out but to the server.
      app.child.kill('SIGKILL');
      await exited(app.child);
      trying = keepTrying();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      seen = await trying.stop();
      expect(seen.answers.filter((answer) => answer !== null)).toEqual([]);
      figures.v6_server_app_kill_leaked = await v6Watch.leaked();
      expect(figures.v6_server_app_kill_leaked).toEqual({ ipv4: 0, ipv6: 0 });
    } finally {
      if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
      await world.inUser(['env', `STEADFAST_DATA_DIR=${dataDir}`, process.execPath, '--import', 'tsx', 'main/cli/index.ts', 'kill-switch', 'off'], 30_000);
    }
    expect(await waitUntil(async () => (await tryCurl(TARGET6_URL, 1)) === V6.user, 2000, 50)).toBe(true);
    expect(await ourTables()).toEqual([]);
    expect(await waitUntil(() => processesMentioning(profile).length === 0, 5000)).toBe(true);
    console.log(JSON.stringify(figures));
  }, 120_000);
});
