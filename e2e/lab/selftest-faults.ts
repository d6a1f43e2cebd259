/**
 * The fault checks of the selftest, each measured through the lab's own v2ray client (and, where a
 * bare socket says more, a raw TCP probe). Each takes its own server so they can run side by side.
 */
import { splitAddress } from './lab';
import { rawProbe } from './raw-probe';
import { type Check, type SelftestContext, median, round, sleep } from './selftest-context';
import { readIpInfo } from './ipinfo-check';

const relayOf = (ctx: SelftestContext, id: string) => splitAddress((ctx.lab.info.servers.find((s) => s.id === id) as { relay: string }).relay);

async function samples(ctx: SelftestContext, id: string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const r = await ctx.via(id, ctx.lab.info.target, 5000);
    if (!r.ok) throw new Error(`request through ${id} failed: ${r.error ?? r.status}`);
    out.push(r.ms);
  }
  return out;
}

/**
 * Latency is added to every chunk in each direction, and a request through a plain-TCP server
 * costs one round trip to the relay, so the round trip added by a setting of L ms should be 2·L.
 * We compare the median added round trip (at L minus at 0) with 2·L: within ±20 % + 5 ms.
 */
export async function checkLatency(ctx: SelftestContext, id: string, latencyMs: number): Promise<Check> {
  await ctx.lab.setFault(id, { fault: 'none', latencyMs: 0, jitterMs: 0 });
  await samples(ctx, id, 1); // warm-up
  const base = median(await samples(ctx, id, 5));
  await ctx.lab.setFault(id, { latencyMs });
  const loaded = median(await samples(ctx, id, 5));
  const added = loaded - base;
  const expected = 2 * latencyMs;
  const tolerance = 0.2 * expected + 5;
  return {
    ok: Math.abs(added - expected) <= tolerance,
    server: id,
    protocol: ctx.spec(id).protocol,
    setting_ms: latencyMs,
    expected_added_rtt_ms: expected,
    measured_added_rtt_ms: round(added),
    base_rtt_ms: round(base),
    tolerance_ms: round(tolerance),
  };
}

/** Jitter of J ms on top of L: each request's added round trip lands in [2L, 2(L+J)] and varies. */
export async function checkJitter(ctx: SelftestContext, id: string): Promise<Check> {
  const latencyMs = 40;
  const jitterMs = 120;
  await ctx.lab.setFault(id, { fault: 'none', latencyMs: 0, jitterMs: 0 });
  await samples(ctx, id, 1);
  const base = median(await samples(ctx, id, 3));
  await ctx.lab.setFault(id, { latencyMs, jitterMs });
  const added = (await samples(ctx, id, 10)).map((ms) => ms - base);
  const spread = Math.max(...added) - Math.min(...added);
  const inRange = added.every((a) => a >= 2 * latencyMs - 10 && a <= 2 * (latencyMs + jitterMs) + 20);
  await ctx.lab.setFault(id, { jitterMs: 0 });
  return {
    ok: inRange && spread >= jitterMs / 3,
    server: id,
    latency_ms: latencyMs,
    jitter_ms: jitterMs,
    added_rtt_min_ms: round(Math.min(...added)),
    added_rtt_max_ms: round(Math.max(...added)),
    spread_ms: round(spread),
  };
}

/** Blackhole: the relay accepts and swallows; nothing comes back within 5 s. */
export async function checkBlackhole(ctx: SelftestContext, id: string): Promise<Check> {
  await ctx.lab.setFault(id, { fault: 'blackhole', latencyMs: 10 });
  const [host, port] = relayOf(ctx, id);
  const [viaClient, raw] = await Promise.all([
    ctx.via(id, ctx.lab.info.target, 5200),
    rawProbe(host, port, { payload: 'GET / HTTP/1.1\r\n\r\n', waitMs: 5000 }),
  ]);
  const answeredWithin5s = viaClient.ok && viaClient.ms < 5000;
  return {
    ok: !answeredWithin5s && raw.connected && !raw.answered && raw.error === null,
    server: id,
    client_outcome: viaClient.error ?? `HTTP ${viaClient.status}`,
    client_ms: round(viaClient.ms, 0),
    raw_connected: raw.connected,
    raw_answered_within_5s: raw.answered,
  };
}

/**
 * Reset and refuse fail fast: on a bare socket at once; through v2ray in about 2 s, because its
 * outbound retries a failed dial a few times before giving up (far from a blackhole's silence).
 */
export async function checkFailFast(ctx: SelftestContext, id: string, fault: 'reset' | 'refuse'): Promise<Check> {
  await ctx.lab.setFault(id, { fault, latencyMs: 10 });
  const [host, port] = relayOf(ctx, id);
  const viaClient = await ctx.via(id, ctx.lab.info.target, 5000);
  const raw = await rawProbe(host, port, { payload: 'x', waitMs: 2000 });
  const wanted = fault === 'reset' ? 'ECONNRESET' : 'ECONNREFUSED';
  return {
    ok: !viaClient.ok && viaClient.ms < 3000 && raw.error === wanted && raw.ms < 200,
    server: id,
    client_failed_after_ms: round(viaClient.ms),
    client_outcome: viaClient.error ?? `HTTP ${viaClient.status}`,
    raw_error: raw.error,
    raw_ms: round(raw.ms),
  };
}

/** slow: a download through the server runs at the cap (measured over the body). */
export async function checkSlow(ctx: SelftestContext, id: string): Promise<Check> {
  const capKbps = 1000;
  const bytes = 256 * 1024;
  await ctx.lab.setFault(id, { fault: 'slow', bandwidthKbps: capKbps, latencyMs: 10 });
  const r = await ctx.via(id, `${ctx.lab.info.download}?bytes=${bytes}`, 15_000);
  if (!r.ok || r.body.length !== bytes) return { ok: false, server: id, error: r.error ?? `HTTP ${r.status}, ${r.body.length} bytes` };
  const bodyMs = r.ms - (r.headersMs ?? 0);
  const kbps = (bytes * 8) / bodyMs;
  return { ok: kbps <= capKbps * 1.25 && kbps >= capKbps * 0.5, server: id, cap_kbps: capKbps, measured_kbps: round(kbps), bytes, body_ms: round(bodyMs, 0) };
}

/** flap: requests started every 250 ms over 4 periods of 1 s follow the down/up phases. */
export async function checkFlap(ctx: SelftestContext, id: string): Promise<Check> {
  const periodMs = 1000;
  const stepMs = 250;
  await ctx.lab.setFault(id, { fault: 'flap', periodMs, latencyMs: 10 });
  const started = performance.now();
  const runs: Promise<boolean>[] = [];
  const expected: boolean[] = [];
  for (let k = 0; k < 16; k += 1) {
    const at = stepMs / 2 + k * stepMs;
    expected.push(Math.floor(at / periodMs) % 2 === 1); // starts down
    await sleep(Math.max(0, started + at - performance.now()));
    runs.push(ctx.via(id, ctx.lab.info.target, 800).then((r) => r.ok));
  }
  const seen = await Promise.all(runs);
  const agree = seen.filter((ok, i) => ok === expected[i]).length;
  let transitions = 0;
  for (let i = 1; i < seen.length; i += 1) if (seen[i] !== seen[i - 1]) transitions += 1;
  return {
    ok: agree >= 13 && transitions >= 2,
    server: id,
    period_ms: periodMs,
    pattern: seen.map((ok) => (ok ? 'o' : 'x')).join(''),
    expected: expected.map((ok) => (ok ? 'o' : 'x')).join(''),
    agreement: `${agree}/16`,
  };
}

/**
 * blocked-here: from the user's address (127.0.0.1) the server is a blackhole; from another lab
 * server's exit address (a client outbound chained through that server) it works, and the exit
 * IP seen is the blocked server's own.
 */
export async function checkBlockedHere(ctx: SelftestContext, id: string, via: string, chainRoute: string): Promise<Check> {
  await ctx.lab.setFault(id, { fault: 'blocked-here', latencyMs: 10 });
  const [direct, chained] = await Promise.all([ctx.via(id, ctx.lab.info.target, 3000), ctx.via(chainRoute, ctx.lab.info.ipinfo, 5000)]);
  let seenIp: string | null = null;
  try {
    seenIp = chained.ok ? readIpInfo('ipapi.co', chained.body.toString('utf8')).ip : null;
  } catch {
    seenIp = null;
  }
  return {
    ok: !direct.ok && chained.ok && seenIp === ctx.spec(id).exitIp,
    server: id,
    through: via,
    from_user: direct.error ?? `HTTP ${direct.status}`,
    from_other_exit: chained.ok ? `HTTP ${chained.status} in ${round(chained.ms, 0)} ms` : (chained.error ?? `HTTP ${chained.status}`),
    exit_ip_seen: seenIp,
  };
}

/**
 * Network offline: the user's connections to relays, the target and the subscription server are
 * blackholed, the control API still answers, and connections from other sources still pass.
 * Online again: everything works.
 */
export async function checkOffline(ctx: SelftestContext, healthy: string): Promise<Check> {
  const { info } = ctx.lab;
  await ctx.lab.setFault(healthy, { fault: 'none', latencyMs: 10 });
  await ctx.lab.setNetwork('offline');
  const [host, port] = splitAddress(new URL(info.target).host);
  const [target, server, subscription, control, otherSource] = await Promise.all([
    ctx.direct(info.target, 2000),
    ctx.via(healthy, info.target, 2000),
    ctx.direct(info.subscriptions[0]?.url ?? '', 2000),
    ctx.direct(`${info.control}/state`, 2000),
    rawProbe(host, port, { localAddress: ctx.spec(healthy).exitIp, payload: 'GET /generate_204 HTTP/1.1\r\nHost: t\r\n\r\n', waitMs: 2000 }),
  ]);
  await ctx.lab.setNetwork('online');
  const [targetBack, serverBack] = await Promise.all([ctx.direct(info.target, 2000), ctx.via(healthy, info.target, 3000)]);
  return {
    ok: !target.ok && !server.ok && !subscription.ok && control.ok && otherSource.answered && targetBack.ok && serverBack.ok,
    offline_target: target.error ?? `HTTP ${target.status}`,
    offline_server: server.error ?? `HTTP ${server.status}`,
    offline_subscription: subscription.error ?? `HTTP ${subscription.status}`,
    offline_control: control.ok ? 'answers' : control.error,
    offline_from_exit_ip: otherSource.answered ? 'answers' : (otherSource.error ?? 'silent'),
    online_target: targetBack.ok ? 'answers' : targetBack.error,
    online_server: serverBack.ok ? 'answers' : serverBack.error,
  };
}

/** Every v2ray-hosted server, healthy: its exit IP as the target sees it is its own `exitIp` (the modern block has its own check). */
export async function checkExitIps(ctx: SelftestContext): Promise<Check> {
  const servers = ctx.lab.info.servers.filter((s) => s.hostedBy === 'v2ray');
  const wrong: string[] = [];
  const queue = [...servers];
  const worker = async () => {
    for (let s = queue.shift(); s; s = queue.shift()) {
      const r = await ctx.via(s.id, ctx.lab.info.ipinfo, 8000);
      let ip = '';
      try {
        ip = r.ok ? readIpInfo('ipapi.co', r.body.toString('utf8')).ip : '';
      } catch {
        ip = '';
      }
      if (ip !== s.exitIp) wrong.push(`${s.id}: ${ip || r.error || `HTTP ${r.status}`}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { ok: wrong.length === 0, servers_checked: servers.length, wrong };
}
