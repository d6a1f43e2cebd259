/**
 * A server's IPv6 as the whole engine decides it, for real, as root, in network namespaces this
 * test creates and removes: `npm run cli -- connect --auto --mode system-wide` with the monitor's
 * IPv6 check on (verify_ipv6), its test URL naming the world's dual-stack site by a name the user
 * machine resolves to both families. The rule (app/system-wide/policy/ipv6-capture.ts,
 * app/monitor/policy/ipv6.ts): a subscription's declaration comes first, and the monitor does not
 * check a declared server; of an undeclared one, the monitor's finding decides; unknown is blocked.
 *
 * Each case runs one lab server (the first carries IPv6, the second does not) under a link that
 * declares it truly, falsely, or not at all, with each of Linux's captures (nftables TPROXY and
 * sing-box's TUN), and reads what the capture did from what a plain program sees: IPv6 through the server (the site sees the server's IPv6 exit), or refused at once
 * (IPv4 still through the tunnel). A world-side counter checks that the user's own IPv6 address
 * never reaches the site, and the site's probe log shows whether the monitor asked through the
 * server over IPv6. The site answers the check's IPv6 request 6 s late, so the finding that the
 * first server carries IPv6 comes after its connection is up (the capture starts on "not known",
 * refused): the capture must follow the finding then.
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
import { declaringIpv6, exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from './world';

const exec = promisify(execFile);
const TUN = { device: LINUX_TUN.device, table: LINUX_TUN.table, priorities: Array.from({ length: LINUX_TUN.ruleSpan }, (_, i) => LINUX_TUN.ruleIndex + i) };
const SITE = 'site.test';
const TEST_URL = `http://${SITE}:8080/generate_204`;
const TARGET6_URL = `http://[${ADDRESSES6.target}]:8080/`;
let world: SystemWideWorld;

const tryCurl = (url: string, timeoutS = 2) =>
  world
    .inUser(['curl', '-s', '--noproxy', '*', '-m', String(timeoutS), url], (timeoutS + 2) * 1000)
    .then((out) => out || null)
    .catch(() => null);

/** A plain IPv6 TCP connection to the site: how it ended and how long it took. */
async function connectIpv6(): Promise<{ ms: number; outcome: string }> {
  const script = `const t=process.hrtime.bigint();const s=require('net').connect({host:'${ADDRESSES6.target}',port:8080});const done=(o)=>{process.stdout.write(JSON.stringify({ms:Number(process.hrtime.bigint()-t)/1e6,outcome:o}));process.exit(0)};s.on('connect',()=>done('connected'));s.on('error',(e)=>done(e.code));setTimeout(()=>done('timeout'),5000)`;
  return JSON.parse(await world.inUser([process.execPath, '-e', script], 10_000)) as { ms: number; outcome: string };
}

/** Who asked the site's generate_204 (the monitor's probes, through the servers' exits). */
const probeAskers = async () => JSON.parse((await tryCurl(`${TARGET_URL}probe-askers`)) ?? '[]') as string[];

async function watchUserIpv6(): Promise<void> {
  const file = join(world.dir, 'ipv6-watch.nft');
  await writeFile(file, ['table inet user_ipv6_watch {', '  counter seen { }', '  chain in {', '    type filter hook prerouting priority -300; policy accept;', `    ip6 saddr ${ADDRESSES6.user} meta l4proto { tcp, udp } counter name seen`, '  }', '}'].join('\n'));
  await exec('ip', ['netns', 'exec', world.topology.world, 'nft', '-f', file]);
}
const userIpv6Seen = async () => Number(/packets (\d+)/.exec((await exec('ip', ['netns', 'exec', world.topology.world, 'nft', 'list', 'counter', 'inet', 'user_ipv6_watch', 'seen'])).stdout)?.[1] ?? NaN);

interface Case {
  name: string;
  server: 0 | 1;
  /** What the link declares: true (`ipv6=1`), false (`ipv6=0`) or nothing. */
  declared: boolean | null;
  /** The capture's words for its IPv6 verdict when it was applied, where they differ from the final ones. */
  first?: RegExp;
  /** The capture's words for its IPv6 verdict in the end. */
  verdict: RegExp;
  /** Whether the monitor asks the site over IPv6 through the server (its check). */
  checked: boolean;
  /** What a plain program's IPv6 request gets: the server's IPv6 exit, or nothing. */
  ipv6Answer: string | null;
}

const CASES: Case[] = [
  { name: 'declared IPv4-only, carries IPv6: the declaration wins, unchecked, blocked', server: 0, declared: false, verdict: /IPv6 blocked \(refused at once, programs fall back to IPv4\): its subscription declares the server does not carry it/, checked: false, ipv6Answer: null },
  { name: 'undeclared, carries IPv6: the monitor finds it after the connection is up, and IPv6 is captured from then', server: 0, declared: null, first: /IPv6 blocked \(refused at once, programs fall back to IPv4\): the server is not known to carry it/, verdict: /IPv6 captured: the monitor found the server carries it/, checked: true, ipv6Answer: ADDRESSES6.exit },
  // Blocked before the check answers and after: the verdict does not change, so neither does the capture.
  { name: 'undeclared, IPv4-only: the monitor finds it refused, and IPv6 stays blocked', server: 1, declared: null, verdict: /IPv6 blocked \(refused at once, programs fall back to IPv4\): the (server is not known to carry it|monitor found the server does not carry it)/, checked: true, ipv6Answer: null },
  { name: 'declared IPv6, IPv4-only: the declaration wins, unchecked, captured into a server that fails it', server: 1, declared: true, verdict: /IPv6 captured: its subscription declares the server carries it/, checked: false, ipv6Answer: null },
];

describe.skipIf(!namespacesAvailable())('a server’s IPv6: the declaration first, else the monitor’s finding (root, namespaces)', () => {
  beforeAll(async () => {
    world = await startSystemWideWorld({ ipv6: { firstServerCarriesIpv6: true }, siteName: SITE, ipv6ProbeDelayMs: 6000 });
    expect(await waitUntil(async () => (await tryCurl(TARGET6_URL, 1)) === ADDRESSES6.user, 5000)).toBe(true);
    // The name resolves in the user machine to both of the site's addresses.
    expect(await world.inUser(['getent', 'ahostsv6', SITE])).toContain(ADDRESSES6.target);
    await watchUserIpv6();
  }, 60_000);

  afterAll(async () => {
    const names = [world?.topology.user, world?.topology.world];
    await world?.close();
    const { stdout } = await exec('ip', ['netns', 'list']);
    for (const name of names) if (name) expect(stdout).not.toContain(name);
  });

  describe.each(['tproxy', 'tun'] as const)('capture %s', (capture) => {
    it.each(CASES)('$name', async (c) => {
      const dataDir = join(world.dir, `data-${capture}-${c.server}-${String(c.declared)}`);
      await mkdir(dataDir, { recursive: true });
      const link = world.undeclaredLinks[c.server]!;
      const subscription = join(dataDir, 'subscription.txt');
      await writeFile(subscription, `${c.declared === null ? link : declaringIpv6(link, c.declared)}\n`);
      const ipInfoUrls = Object.fromEntries([...IP_INFO_SERVICES, 'cloudflare-trace'].map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
      const settings = join(dataDir, 'settings-patch.json');
      await writeFile(settings, JSON.stringify({ monitor: { verifyIpv6: true, urls: [TEST_URL], urlTestTimeoutMs: 10_000, ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` } }));
      const exitV4 = c.server === 0 ? ADDRESSES.exit : ADDRESSES.exit2;
      const askedBefore = (await probeAskers()).length;
      const seenBefore = await userIpv6Seen();

      const app = startApp(world, dataDir, ['--mode', 'system-wide', '--capture', capture, '--auto', '--verbose', '--data-dir', join(dataDir, 'profile'), '--settings', settings], subscription);
      try {
        await app.ready;
        const applied = /^system-wide: applied .*$/m.exec(app.output())?.[0] ?? '';
        expect(applied).toMatch(c.first ?? c.verdict);
        // The verdict the capture follows: at once where it was known when the capture was applied,
        // else as soon as the monitor's check has found it.
        expect(await waitUntil(() => c.verdict.test(app.output()), 20_000, 100), app.output()).toBe(true);
        if (c.checked) expect(await waitUntil(() => new RegExp(`IPv6 check of [^:]+: ${c.ipv6Answer ? 'supported' : 'refused'}`).test(app.output()), 15_000, 100), app.output()).toBe(true);
        else expect(app.output()).not.toMatch(/IPv6 check of /);

        expect(await tryCurl(TARGET_URL)).toBe(exitV4);
        if (c.ipv6Answer) {
          expect(await waitUntil(async () => (await tryCurl(TARGET6_URL)) === c.ipv6Answer, 5_000, 100)).toBe(true);
        } else if (!c.verdict.source.startsWith('IPv6 captured')) {
          // Blocked: refused at once, so a dual-stack program falls back to IPv4 without waiting.
          const attempt = await connectIpv6();
          expect(attempt.outcome).not.toBe('connected');
          expect(attempt.ms).toBeLessThan(1000);
          console.log(JSON.stringify({ case: c.name, ipv6_refused_ms: attempt.ms, outcome: attempt.outcome }));
        } else {
          // Captured on the declaration's word into a server that cannot dial IPv6: the request fails in the tunnel.
          expect(await tryCurl(TARGET6_URL)).toBeNull();
        }
        const asked = (await probeAskers()).slice(askedBefore);
        expect(asked.includes(ADDRESSES6.exit), JSON.stringify(asked)).toBe(c.checked && c.ipv6Answer !== null);
        expect(await userIpv6Seen()).toBe(seenBefore);
      } finally {
        app.child.kill('SIGTERM');
        await exited(app.child);
      }
      expect(await captureTraces(world.topology.user)).toEqual([]);
      expect(await waitUntil(async () => (await tunTraces(world.topology.user, TUN)).length === 0, 5000, 50)).toBe(true);
    }, 90_000);
  });
});
