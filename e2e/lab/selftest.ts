/**
 * `npm run lab -- --selftest`: starts the lab, checks every piece through a real v2ray client and
 * prints one JSON line `{"ok":…}`. Fault checks each take their own server and run side by side,
 * so the whole run stays well under a minute.
 */
import { createConnection } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type ClientRoute, startClient } from './client';
import { type InProcessLab, splitAddress, startLab } from './lab';
import { type Check, guarded, makeContext, round } from './selftest-context';
import { checkBlackhole, checkBlockedHere, checkExitIps, checkFailFast, checkFlap, checkJitter, checkLatency, checkOffline, checkSlow } from './selftest-faults';
import { checkIpv6 } from './selftest-ipv6';
import { checkModernServers, checkUdpFaults, withModernClient } from './selftest-modern';
import { findLabCore } from '../../app/core/testing/cores';
import { checkControlValidation, checkIpInfo, checkSubscriptions } from './selftest-services';
import type { LabOptions } from './types';
import type { ServerSpec } from './world';
import { processAlive } from '../../app/process/alive';

const LATENCY_SETTING_MS = 100;

const isPlain = (s: ServerSpec) => s.network === 'tcp' && s.security === 'none';

/**
 * Picks servers for each check. Latency runs first, alone, on one plain-TCP server per protocol
 * (a WebSocket or TLS handshake would add round trips); the checks after it run side by side, each
 * on its own server, plain-TCP first where timing is tight or a chain runs through.
 */
export function assignRoles(servers: ServerSpec[]): { latency: string[]; roles: Record<Role, string> } | string {
  const latency: string[] = [];
  for (const protocol of ['vmess', 'vless', 'trojan', 'shadowsocks']) {
    const found = servers.find((s) => s.protocol === protocol && isPlain(s));
    if (found) latency.push(found.id);
  }
  const pool = [...servers];
  const roles = {} as Record<Role, string>;
  for (const [role, wantPlain] of ROLES) {
    const i = wantPlain ? pool.findIndex(isPlain) : -1;
    const [picked] = pool.splice(i >= 0 ? i : 0, 1);
    if (!picked) return `need at least ${ROLES.length} servers for the selftest, have ${servers.length}`;
    roles[role] = picked.id;
  }
  return { latency, roles };
}

type Role = 'blocked' | 'via' | 'flap' | 'jitter' | 'blackhole' | 'reset' | 'refuse' | 'slow';
const ROLES: [Role, boolean][] = [
  ['blocked', true],
  ['via', true],
  ['jitter', true],
  ['flap', true],
  ['blackhole', false],
  ['reset', false],
  ['refuse', false],
  ['slow', false],
];

function refused(address: string): Promise<boolean> {
  const [bracketed, port] = splitAddress(address);
  const host = bracketed.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function checkCleanup(lab: InProcessLab): Promise<Check> {
  // A UDP relay's closed port answers ICMP, not a TCP refusal: only the TCP relays are dialled.
  const relays = lab.info.servers.filter((s) => s.carrier === 'tcp').map((s) => s.relay);
  const others = [new URL(lab.info.control).host, new URL(lab.info.target).host, new URL(lab.info.subscriptions[0]?.url ?? lab.info.target).host];
  if (lab.info.targetIpv6) others.push(new URL(lab.info.targetIpv6).host);
  const closed = await Promise.all([...relays, ...others].map(refused));
  const open = [...relays, ...others].filter((_, i) => !closed[i]);
  const modernAlive = lab.modernPids.filter((pid) => processAlive(pid));
  return { ok: open.length === 0 && !processAlive(lab.v2rayPid) && modernAlive.length === 0, still_listening: open, v2ray_alive: processAlive(lab.v2rayPid), modern_cores_alive: modernAlive };
}

/** The selftest checks the modern block too unless told otherwise (`modern: false`). */
export async function runSelftest(given: LabOptions): Promise<{ ok: boolean } & Record<string, unknown>> {
  const options = { ...given, modern: given.modern ?? true };
  const t0 = performance.now();
  const lab = await startLab(options);
  const startMs = performance.now() - t0;
  const checks: Record<string, Check> = {};
  let client: Awaited<ReturnType<typeof startClient>> | null = null;
  try {
    const servers = lab.world.servers;
    const protocols = [...new Set(servers.map((s) => s.protocol))];
    const exits = new Set(servers.map((s) => s.exitIp));
    checks.world = {
      ok: servers.length >= 12 && protocols.length >= 4 && exits.size === servers.length && [...exits].every((ip) => ip !== '127.0.0.1'),
      servers: servers.length,
      protocols,
      distinct_exit_ips: exits.size,
      transports: [...new Set(servers.map((s) => `${s.network}+${s.security}`))],
      countries: [...new Set(servers.map((s) => s.place.code))].length,
    };
    const plan = assignRoles(servers);
    if (typeof plan === 'string') throw new Error(plan);
    const { latency, roles } = plan;
    const r = roles;
    const dial = (id: string) => {
      const [host, port] = splitAddress((lab.info.servers.find((s) => s.id === id) as { relay: string }).relay);
      return { host, port };
    };
    const chainRoute = `chain-${r.via}-${r.blocked}`;
    const routes: ClientRoute[] = [
      ...servers.map((s) => ({ tag: s.id, server: s, dial: dial(s.id) })),
      { tag: chainRoute, server: servers.find((s) => s.id === r.blocked) as ServerSpec, dial: dial(r.blocked), via: r.via },
    ];
    client = await startClient(routes, options.v2rayPath);
    const ctx = makeContext(lab, client);

    checks.control_validation = await guarded(() => checkControlValidation(ctx));
    checks.exit_ips = await guarded(() => checkExitIps(ctx));
    checks.ipv6 = await guarded(() => checkIpv6(ctx));
    // Timing checks run alone: two cores shared with side-by-side checks would blur the figures.
    const latencyChecks: Check[] = [];
    for (const id of latency) latencyChecks.push(await guarded(() => checkLatency(ctx, id, LATENCY_SETTING_MS)));
    checks.latency = { ok: latencyChecks.length >= 1 && latencyChecks.every((c) => c.ok), per_protocol: latencyChecks };
    checks.jitter = await guarded(() => checkJitter(ctx, r.jitter));
    const [blackhole, reset, refuse, slow, flap, blocked, ipinfo] = await Promise.all([
      guarded(() => checkBlackhole(ctx, r.blackhole)),
      guarded(() => checkFailFast(ctx, r.reset, 'reset')),
      guarded(() => checkFailFast(ctx, r.refuse, 'refuse')),
      guarded(() => checkSlow(ctx, r.slow)),
      guarded(() => checkFlap(ctx, r.flap)),
      guarded(() => checkBlockedHere(ctx, r.blocked, r.via, chainRoute)),
      guarded(() => checkIpInfo(ctx, r.via)),
    ]);
    Object.assign(checks, { blackhole, reset, refuse, slow, flap, blocked_here: blocked, ipinfo });
    checks.subscriptions = await guarded(() => checkSubscriptions(ctx));
    checks.network_offline = await guarded(() => checkOffline(ctx, r.via));
    if (lab.info.modern) {
      const leftOut = lab.info.modern.leftOut;
      checks.modern_block = { ok: true, hosted: lab.modern.length, left_out: leftOut };
      if (lab.modern.length > 0) {
        const cores = { xray: options.xrayPath ?? findLabCore('xray'), 'sing-box': options.singBoxPath ?? findLabCore('sing-box') };
        const udp = lab.modern.find((s) => s.kind === 'hysteria2-salamander-hopping') ?? lab.modern.find((s) => s.carrier === 'udp');
        Object.assign(
          checks,
          await withModernClient(lab, cores, async (modernClient) => ({
            modern_servers: await guarded(() => checkModernServers(lab, modernClient)),
            ...(udp ? { udp_faults: await guarded(() => checkUdpFaults(lab, modernClient, udp)) } : {}),
          })).catch((error: unknown) => ({ modern_servers: { ok: false, error: error instanceof Error ? error.message : String(error) } })),
        );
      }
    }
  } catch (error) {
    checks.setup = { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await client?.stop();
    await lab.stop();
  }
  checks.cleanup = await guarded(() => checkCleanup(lab));
  const failed = Object.entries(checks)
    .filter(([, c]) => !c.ok)
    .map(([name]) => name);
  return {
    ok: failed.length === 0,
    failed,
    servers: lab.info.servers.length,
    protocols: [...new Set(lab.info.servers.map((s) => s.protocol))].length,
    distinct_exit_ips: new Set(lab.info.servers.map((s) => s.exitIp)).size,
    start_ms: round(startMs, 0),
    duration_ms: round(performance.now() - t0, 0),
    checks,
  };
}
