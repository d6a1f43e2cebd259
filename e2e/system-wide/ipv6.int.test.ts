/**
 * IPv6 in system-wide mode for real, as root, in network namespaces this test creates and removes:
 * the user machine and the world have IPv6 on their link, and the world's site is dual-stack. The
 * app (`npm run cli -- connect --mode system-wide`) runs on one lab server at a time, each link
 * declaring the server's IPv6 (`ipv6=1` / `ipv6=0`):
 * - a server that carries IPv6: a plain program's IPv6 connection reaches the site from the
 *   server's IPv6 exit, and its IPv4 from the server's IPv4 exit;
 * - an IPv4-only server: the IPv6 attempt is refused at once (measured: ≤ 1 s), a dual-stack
 *   client falls back to IPv4 through the tunnel, and IPv4 works.
 * In both, a counter in the world sees no TCP or UDP packet from the user's own IPv6 address, and
 * nothing of the capture is left after the app stops. With the kill switch on as well, a watcher on
 * the user's outer interface sees no packet to any address but the server's, either way.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IP_INFO_SERVICES } from '../../shared/settings';
import { waitUntil } from '../../app/tunnel/testing/processes';
import { LINUX_TUN } from '../../app/system-wide/tun/policy/sing-box-tun';
import { ADDRESSES, ADDRESSES6, captureTraces, namespacesAvailable, tunTraces } from './netns';
import { rulesLeft, watchLeaks } from './leak-watch';
import { exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from './world';

const exec = promisify(execFile);
let world: SystemWideWorld;
const TARGET6_URL = `http://[${ADDRESSES6.target}]:8080/`;

const tryCurl = (url: string, timeoutS = 2) =>
  world
    .inUser(['curl', '-s', '--noproxy', '*', '-m', String(timeoutS), url], (timeoutS + 2) * 1000)
    .then((out) => out || null)
    .catch(() => null);

/** How long a plain IPv6 TCP connection to the site takes to succeed or fail, and how it ended. */
async function connectIpv6(): Promise<{ ms: number; outcome: string }> {
  const script = `const t=process.hrtime.bigint();const s=require('net').connect({host:'${ADDRESSES6.target}',port:8080});const done=(o)=>{process.stdout.write(JSON.stringify({ms:Number(process.hrtime.bigint()-t)/1e6,outcome:o}));process.exit(0)};s.on('connect',()=>done('connected'));s.on('error',(e)=>done(e.code));setTimeout(()=>done('timeout'),5000)`;
  return JSON.parse(await world.inUser([process.execPath, '-e', script], 10_000)) as { ms: number; outcome: string };
}

/** A UDP datagram to the site's IPv6 echo: its answer (who the site saw), or null. */
const udpIpv6 = async () =>
  (await world.inUser([process.execPath, '-e', `const s=require('dgram').createSocket('udp6');s.on('error',()=>process.exit(0));s.on('message',m=>{process.stdout.write(String(m).trim());process.exit(0)});s.send('hi',5353,'${ADDRESSES6.target}');setTimeout(()=>process.exit(0),1500)`], 5000)) || null;

/**
 * A dual-stack client as browsers are (happy eyeballs: Node's autoSelectFamily): the site's name
 * has its IPv6 address first and its IPv4 one second. A plain HTTP/1.0 request without a name in
 * it, so the site is reached by address (the lab's servers cannot resolve the world's names).
 * Returns what the site saw and the time until its answer arrived (the tunnel's close of a
 * finished connection comes later and is no part of a page's wait).
 */
async function dualStackRequest(): Promise<{ seen: string | null; seconds: number }> {
  const script = [
    `const t=process.hrtime.bigint();const done=(seen)=>{process.stdout.write(JSON.stringify({seen,seconds:Number(process.hrtime.bigint()-t)/1e9}));process.exit(0)};`,
    `const lookup=(h,o,cb)=>cb(null,[{address:'${ADDRESSES6.target}',family:6},{address:'${ADDRESSES.target}',family:4}]);`,
    `const s=require('net').connect({host:'site.test',port:8080,lookup,autoSelectFamily:true});let body='';`,
    `s.on('connect',()=>s.write('GET / HTTP/1.0\\r\\n\\r\\n'));s.on('data',(d)=>{body+=d;const b=body.split('\\r\\n\\r\\n')[1];if(b&&b.endsWith('\\n'))done(b.trim())});s.on('error',()=>done(null));setTimeout(()=>done(null),5000)`,
  ].join('');
  return JSON.parse(await world.inUser([process.execPath, '-e', script], 10_000)) as { seen: string | null; seconds: number };
}

/** The world's watcher: every TCP or UDP packet arriving from the user's own IPv6 address. */
async function watchUserIpv6(): Promise<void> {
  const file = join(world.dir, 'ipv6-watch.nft');
  await writeFile(
    file,
    ['table inet user_ipv6_watch {', '  counter seen { }', '  chain in {', '    type filter hook prerouting priority -300; policy accept;', `    ip6 saddr ${ADDRESSES6.user} meta l4proto { tcp, udp } counter name seen`, '  }', '}'].join('\n'),
  );
  await exec('ip', ['netns', 'exec', world.topology.world, 'nft', '-f', file]);
}
const userIpv6Seen = async () => Number(/packets (\d+)/.exec((await exec('ip', ['netns', 'exec', world.topology.world, 'nft', 'list', 'counter', 'inet', 'user_ipv6_watch', 'seen'])).stdout)?.[1] ?? NaN);
const resetWatch = () => exec('ip', ['netns', 'exec', world.topology.world, 'nft', 'reset', 'counters', 'table', 'inet', 'user_ipv6_watch']);

const TUN = { device: LINUX_TUN.device, table: LINUX_TUN.table, priorities: Array.from({ length: LINUX_TUN.ruleSpan }, (_, i) => LINUX_TUN.ruleIndex + i) };

/** Stops the app as Ctrl-C does; nothing of either capture may be left. */
async function stopApp(app: ReturnType<typeof startApp>): Promise<void> {
  app.child.kill('SIGTERM');
  await exited(app.child);
  expect(await captureTraces(world.topology.user)).toEqual([]);
  expect(await waitUntil(async () => (await tunTraces(world.topology.user, TUN)).length === 0, 5000, 50)).toBe(true);
}

describe.skipIf(!namespacesAvailable())('IPv6 in system-wide mode, in network namespaces (root)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld({ ipv6: { firstServerCarriesIpv6: true } });
    // Without the app the site is reached directly on both families, and the watcher sees it.
    expect(await waitUntil(async () => (await tryCurl(TARGET_URL, 1)) === ADDRESSES.user, 5000)).toBe(true);
    expect(await waitUntil(async () => (await tryCurl(TARGET6_URL, 1)) === ADDRESSES6.user, 5000)).toBe(true);
    await watchUserIpv6();
    expect(await tryCurl(TARGET6_URL)).toBe(ADDRESSES6.user);
    expect(await userIpv6Seen()).toBeGreaterThan(0);
  }, 60_000);

  afterAll(async () => {
    const names = [world?.topology.user, world?.topology.world];
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    for (const name of names) if (name) expect(stdout).not.toContain(name);
  });

  describe.each(['tproxy', 'tun'] as const)('capture %s', (capture) => {
    it('an IPv6-capable server: the site sees the server’s IPv6 exit, never the user’s address', async () => {
      await resetWatch();
      const app = startApp(world, join(world.dir, `data-ipv6-${capture}`), ['--mode', 'system-wide', '--capture', capture], world.serverSubscriptions[0]);
      try {
        await app.ready;
        expect(app.output()).toMatch(/system-wide: applied .*IPv6 captured: its subscription declares the server carries it/);
        expect(await tryCurl(TARGET6_URL)).toBe(ADDRESSES6.exit);
        expect(await tryCurl(TARGET_URL)).toBe(ADDRESSES.exit);
        expect(await udpIpv6()).toBe(ADDRESSES6.exit);
        const dual = await dualStackRequest();
        expect(dual.seen).toBe(ADDRESSES6.exit);
        expect(await userIpv6Seen()).toBe(0);
        console.log(JSON.stringify({ capture, ipv6_server: { dual_stack_request_s: dual.seconds, user_ipv6_packets_at_world: await userIpv6Seen() } }));
      } finally {
        await stopApp(app);
      }
    }, 90_000);

    it('an IPv4-only server: IPv6 is refused within 1 s, a dual-stack client falls back to IPv4 through the tunnel, the user’s IPv6 never arrives', async () => {
      await resetWatch();
      const app = startApp(world, join(world.dir, `data-ipv4-${capture}`), ['--mode', 'system-wide', '--capture', capture], world.serverSubscriptions[1]);
      try {
        await app.ready;
        expect(app.output()).toMatch(/system-wide: applied .*IPv6 blocked \(refused at once, programs fall back to IPv4\): its subscription declares the server does not carry it/);
        const attempts = [await connectIpv6(), await connectIpv6(), await connectIpv6()];
        for (const attempt of attempts) {
          expect(attempt.outcome).toBe('ECONNREFUSED');
          expect(attempt.ms).toBeLessThanOrEqual(1000);
        }
        const dual = await dualStackRequest();
        expect(dual.seen).toBe(ADDRESSES.exit2);
        expect(dual.seconds).toBeLessThanOrEqual(1);
        expect(await tryCurl(TARGET_URL)).toBe(ADDRESSES.exit2);
        expect(await tryCurl(TARGET6_URL, 1)).toBeNull();
        expect(await udpIpv6()).toBeNull();
        expect(await userIpv6Seen()).toBe(0);
        console.log(JSON.stringify({ capture, ipv4_server: { ipv6_refused_ms: attempts.map((a) => Math.round(a.ms * 10) / 10), dual_stack_fallback_s: dual.seconds, user_ipv6_packets_at_world: await userIpv6Seen() } }));
      } finally {
        await stopApp(app);
      }
    }, 90_000);

    it('with the kill switch on, each server in turn: not one packet leaves but to the server, IPv6 included', async () => {
      const dataDir = join(world.dir, `data-kill-switch-${capture}`);
      const leaks = await watchLeaks(world);
      const figures: Record<string, unknown> = { capture };
      for (const [index, expected] of [[0, ADDRESSES6.exit], [1, null]] as const) {
        const app = startApp(world, dataDir, ['--mode', 'system-wide', '--capture', capture, '--kill-switch'], world.serverSubscriptions[index]);
        try {
          await app.ready;
          expect(app.output()).toMatch(/kill switch: on; allowed outside the tunnel: 1 server address\(es\)/);
          await leaks.reset();
          const answers = [await tryCurl(TARGET6_URL, 1), await tryCurl(TARGET6_URL, 1), await udpIpv6()];
          expect(answers).toEqual([expected, expected, expected]);
          expect(await tryCurl(TARGET_URL)).toBe(index === 0 ? ADDRESSES.exit : ADDRESSES.exit2);
          figures[`server_${index}_leaked`] = await leaks.leaked();
          expect(figures[`server_${index}_leaked`]).toEqual({ ipv4: 0, ipv6: 0 });
        } finally {
          app.child.kill('SIGTERM');
          await exited(app.child);
        }
      }
      // The kill switch outlives the app by design, until the user turns it off.
      expect(await rulesLeft(world)).toEqual(['nftables table steadfast_killswitch']);
      await world.inUser(['env', `STEADFAST_DATA_DIR=${dataDir}`, process.execPath, '--import', 'tsx', 'main/cli/index.ts', 'kill-switch', 'off'], 30_000);
      expect(await rulesLeft(world)).toEqual([]);
      expect(await waitUntil(async () => (await tryCurl(TARGET6_URL, 1)) === ADDRESSES6.user, 2000, 50)).toBe(true);
      await exec('ip', ['netns', 'exec', world.topology.user, 'nft', 'delete', 'table', 'inet', 'leak_watch']);
      console.log(JSON.stringify(figures));
    }, 120_000);
  });

  it('the whole engine (--auto, IPv6 known through the monitor’s status) captures IPv6 for the server that carries it the same way', async () => {
    await resetWatch();
    const dataDir = join(world.dir, 'data-engine');
    await mkdir(dataDir, { recursive: true });
    const settings = join(dataDir, 'world-settings.json');
    const ipInfoUrls = Object.fromEntries([...IP_INFO_SERVICES, 'cloudflare-trace'].map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
    await writeFile(settings, JSON.stringify({ monitor: { ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` } }));
    const app = startApp(world, dataDir, ['--mode', 'system-wide', '--auto', '--data-dir', join(dataDir, 'profile'), '--test-url', `${TARGET_URL}generate_204`, '--settings', settings], world.serverSubscriptions[0]);
    try {
      await app.ready;
      expect(app.output()).toMatch(/system-wide: applied .*IPv6 captured: its subscription declares the server carries it/);
      expect(await tryCurl(TARGET6_URL)).toBe(ADDRESSES6.exit);
      expect(await userIpv6Seen()).toBe(0);
    } finally {
      await stopApp(app);
    }
  }, 90_000);
});
