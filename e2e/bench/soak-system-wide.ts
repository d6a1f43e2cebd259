/**
 * The soak in system-wide mode, as root in network namespaces (e2e/system-wide/world.ts): the app
 * (`npm run cli -- connect --auto --mode system-wide [--kill-switch]`) on the user machine with
 * two lab servers — the first carries IPv6, the second does not — that flap for the whole run
 * (the world drops everything to one, then none, then the other, then both: Auto switches, and
 * sometimes finds nothing to switch to), while programs that know nothing of proxies keep
 * reaching a dual-stack site over TCP (IPv4, IPv6) and UDP. Every `--sample-seconds` (30): the
 * app's RSS and its cores', the leak watcher's counts (e2e/system-wide/leak-watch.ts: packets on
 * the outer interface to anything but the servers' address) and what the site saw. After stop:
 * the rules left (with the kill switch: its table stays by design until `kill-switch off`, which
 * this then runs, and after which nothing may be left) and the processes left.
 *
 *   sudo npm run bench -- soak --mode system-wide --kill-switch [--minutes 20] [--sample-seconds 30] [--flap-seconds 40]
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { IP_INFO_SERVICES } from '../../shared/settings';
import { processesMentioning } from '../../app/tunnel/testing/processes';
import { rulesLeft, watchLeaks } from '../system-wide/leak-watch';
import { ADDRESSES, ADDRESSES6, namespacesAvailable } from '../system-wide/netns';
import { exited, LAB_PORT, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';
import { growth, option, round } from './harness';

const exec = promisify(execFile);
const TARGET6_URL = `http://[${ADDRESSES6.target}]:8080/`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Which servers are unreachable in each phase of the flapping cycle (by lab server index). */
const FLAP_CYCLE: number[][] = [[0], [], [1], [0, 1], []];

interface Row {
  t_s: number;
  app_rss_mib: number;
  cores_rss_mib: number;
  cores: number;
  leaked_ipv4: number;
  leaked_ipv6: number;
  switches: number;
  answered: number;
  failed: number;
  down: string;
}

/** Resident memory of a process in MiB (0 when it is gone). */
async function rssMib(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024, 1);
}

/** The world drops everything addressed to the listed servers (a blackhole, as a dead server is). */
async function setDown(world: SystemWideWorld, servers: number[]): Promise<void> {
  const ports = servers.map((i) => String(LAB_PORT + i));
  const body = [
    'table inet soak_flap',
    'delete table inet soak_flap',
    'table inet soak_flap {',
    '  chain in {',
    '    type filter hook input priority -10; policy accept;',
    ...(ports.length > 0 ? [`    tcp dport { ${ports.join(', ')} } drop`] : []),
    '  }',
    '}',
    '',
  ].join('\n');
  const file = join(world.dir, 'flap.nft');
  await writeFile(file, body);
  await exec('ip', ['netns', 'exec', world.topology.world, 'nft', '-f', file]);
}

async function monitorSettings(dataDir: string): Promise<string> {
  const path = join(dataDir, 'world-settings.json');
  const services = [...IP_INFO_SERVICES, 'cloudflare-trace'];
  const ipInfoUrls = Object.fromEntries(services.map((service) => [service, `${TARGET_URL}ipinfo/${service}`]));
  await writeFile(path, JSON.stringify({ monitor: { ipInfoUrls, transferTestUrl: `${TARGET_URL}bytes/{bytes}` } }));
  return path;
}

/** Programs trying the site the whole time: what the site saw of each attempt (null: no answer). */
function steadyTraffic(world: SystemWideWorld) {
  let running = true;
  const seen: Record<string, number> = {};
  let answered = 0;
  let failed = 0;
  const curl = (url: string) =>
    world
      .inUser(['curl', '-s', '--noproxy', '*', '-m', '2', url], 5000)
      .then((out) => out || null)
      .catch(() => null);
  const udp = `const s=require('dgram').createSocket('udp4');s.on('error',()=>process.exit(0));s.send('hi',5353,'${ADDRESSES.target}',()=>setTimeout(()=>process.exit(0),200))`;
  const loop = (async () => {
    while (running) {
      for (const answer of await Promise.all([curl(TARGET_URL), curl(TARGET6_URL)])) {
        if (answer === null) failed++;
        else {
          answered++;
          seen[answer] = (seen[answer] ?? 0) + 1;
        }
      }
      await world.inUser([process.execPath, '-e', udp], 5000).catch(() => undefined);
      await sleep(200);
    }
  })();
  return {
    counts: () => ({ answered, failed }),
    stop: async () => {
      running = false;
      await loop;
      return { answered, failed, seen_by_site: seen };
    },
  };
}

export async function systemWideSoak(args: string[]): Promise<Record<string, unknown>> {
  if (!namespacesAvailable()) throw new Error('the system-wide soak needs root with nft and ip: it runs in network namespaces it creates');
  const killSwitch = args.includes('--kill-switch');
  const minutes = option(args, 'minutes', 20);
  const sampleMs = option(args, 'sample-seconds', 30) * 1000;
  const flapMs = option(args, 'flap-seconds', 40) * 1000;
  const durationMs = minutes * 60_000;
  const warmupS = Math.round(Math.min(5 * 60_000, durationMs / 5) / 1000);
  const world = await startSystemWideWorld({ ipv6: { firstServerCarriesIpv6: true } });
  const namespaces = [world.topology.user, world.topology.world];
  let app: ReturnType<typeof startApp> | null = null;
  let result: Record<string, unknown>;
  try {
    const dataDir = join(world.dir, 'data-soak');
    await mkdir(dataDir, { recursive: true });
    const profile = join(dataDir, 'profile');
    const watch = await watchLeaks(world);
    const extra = ['--mode', 'system-wide', '--auto', ...(killSwitch ? ['--kill-switch'] : []), '--data-dir', profile, '--test-url', `${TARGET_URL}generate_204`, '--settings', await monitorSettings(dataDir)];
    app = startApp(world, dataDir, extra, world.twoServerSubscription);
    await app.ready;
    const appPid = app.child.pid!;
    await watch.reset();
    const traffic = steadyTraffic(world);
    const rows: Row[] = [];
    const started = Date.now();
    let nextSampleAt = started;
    let phase = -1;
    while (Date.now() - started <= durationMs) {
      const elapsed = Date.now() - started;
      const wanted = Math.floor(elapsed / flapMs) % FLAP_CYCLE.length;
      if (wanted !== phase) {
        phase = wanted;
        await setDown(world, FLAP_CYCLE[phase]!);
      }
      if (Date.now() >= nextSampleAt) {
        const cores = processesMentioning(join(profile, 'runtime'));
        const coreRss = await Promise.all(cores.map(rssMib));
        const leaked = await watch.leaked();
        rows.push({
          t_s: Math.round(elapsed / 1000),
          app_rss_mib: await rssMib(appPid),
          cores_rss_mib: round(coreRss.reduce((a, b) => a + b, 0), 1),
          cores: cores.length,
          leaked_ipv4: leaked.ipv4,
          leaked_ipv6: leaked.ipv6,
          switches: (app.output().match(/AUTO.*switch /g) ?? []).length,
          ...traffic.counts(),
          down: FLAP_CYCLE[phase]!.map((i) => `server-${i}`).join('+') || 'none',
        });
        nextSampleAt += sampleMs;
      }
      await sleep(500);
    }
    const seen = await traffic.stop();
    await setDown(world, []);
    const leakedTotal = await watch.leaked();

    app.child.kill('SIGTERM');
    await exited(app.child);
    const quitAt = Date.now();
    await sleep(1000);
    const afterQuit = await rulesLeft(world);
    let afterOff: string[] | null = null;
    let offMs: number | null = null;
    if (killSwitch) {
      await world.inUser(['env', `STEADFAST_DATA_DIR=${dataDir}`, process.execPath, '--import', 'tsx', 'main/cli/index.ts', 'kill-switch', 'off'], 30_000);
      offMs = Date.now() - quitAt;
      afterOff = await rulesLeft(world);
    }
    const rss = growth(rows, warmupS, (r) => r.app_rss_mib);
    const userAddresses = [ADDRESSES.user, ADDRESSES6.user];
    result = {
      mode: 'system-wide',
      kill_switch: killSwitch,
      minutes,
      sample_interval_s: sampleMs / 1000,
      warmup_s: warmupS,
      flapping: `every ${flapMs / 1000} s the next of: ${FLAP_CYCLE.map((down) => down.map((i) => `server-${i}`).join('+') || 'none').join(', ')} unreachable (server-0 carries IPv6, server-1 does not)`,
      leaked_packets: leakedTotal,
      answers_showing_the_user_address: userAddresses.reduce((a, address) => a + (seen.seen_by_site[address] ?? 0), 0),
      traffic: seen,
      switches: rows.at(-1)?.switches ?? 0,
      app_rss_growth_after_warmup: rss,
      cores_rss_growth_after_warmup: growth(rows, warmupS, (r) => r.cores_rss_mib),
      rules_left_after_quit: afterQuit,
      rules_left_after_kill_switch_off: afterOff,
      quit_to_kill_switch_off_ms: offMs,
      processes_left_after_stop: processesMentioning(profile).length,
      samples: rows,
    };
  } finally {
    if (app && app.child.exitCode === null && app.child.signalCode === null) {
      app.child.kill('SIGKILL');
      await exited(app.child);
    }
    await world.close();
  }
  // The namespaces take every rule and route with them; none may outlive the run.
  const { stdout } = await exec('ip', ['netns', 'list']);
  const left = namespaces.filter((name) => stdout.includes(name));
  if (left.length > 0) throw new Error(`network namespaces left after the soak: ${left.join(', ')}`);
  return result;
}
