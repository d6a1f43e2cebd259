/**
 * The selftest's checks of the modern block, through the lab's own Xray / sing-box client: every
 * server answers with its own exit IP and country and carries 1 MB byte-exact; the UDP relay's
 * faults bite on a real QUIC protocol (blackhole swallows, reset fails fast, lifting heals).
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fetchVia } from './client';
import type { InProcessLab } from './lab';
import { splitAddress } from './lab';
import type { ModernClient } from './modern-client';
import { startModernClient } from './modern-client';
import { type ModernServerSpec, urlThrough } from './modern-world';
import { type Check, guarded, round, sleep } from './selftest-context';

const DOWNLOAD_BYTES = 1024 * 1024;

export async function withModernClient(lab: InProcessLab, cores: { xray: string | null; 'sing-box': string | null }, run: (client: ModernClient) => Promise<Record<string, Check>>): Promise<Record<string, Check>> {
  const pin = lab.modernPin;
  const routes = lab.modern.map((spec) => {
    const info = lab.info.servers.find((s) => s.id === spec.id);
    if (!info) throw new Error(`modern server ${spec.id} is not in the lab's info`);
    const [host, port] = splitAddress(info.relay);
    return { spec, dial: { host, port, ports: info.relayPorts } };
  });
  const client = await startModernClient(routes, pin, cores);
  try {
    return await run(client);
  } finally {
    await client.stop();
  }
}

/** Exit IP, country and a 1 MB download through one server (the hash compared with the target's own). */
async function checkServer(lab: InProcessLab, client: ModernClient, spec: ModernServerSpec): Promise<Check> {
  const port = client.proxies[spec.id] as number;
  const info = await fetchVia(port, urlThrough(spec, lab.info.ipinfoUrls['ip-api.com']), 10_000);
  const parsed = info.ok ? (JSON.parse(info.body.toString('utf8')) as { query?: string; countryCode?: string }) : {};
  const started = performance.now();
  const download = await fetchVia(port, urlThrough(spec, `${lab.info.download}?bytes=${DOWNLOAD_BYTES}`), 30_000);
  const direct = await fetchVia(null, `${lab.info.download}?bytes=${DOWNLOAD_BYTES}`, 10_000);
  const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const exact = download.ok && download.body.length === DOWNLOAD_BYTES && hash(download.body) === hash(direct.body);
  // A name of the lab's zone, sent unresolved: the server resolves it with the lab's resolver.
  // (A WireGuard client resolves names itself, and the user's side cannot: that one is skipped.)
  const byName = spec.kind === 'wireguard' ? null : await fetchVia(port, `http://www.${lab.info.zone}:${new URL(lab.info.target).port}/generate_204`, 10_000);
  return {
    ok: parsed.query === spec.exitIp && parsed.countryCode === spec.place.code && exact && (byName === null || byName.status === 204),
    kind: spec.kind,
    core: spec.core,
    exit_ip: parsed.query ?? null,
    country: parsed.countryCode ?? null,
    download_bytes: download.body.length,
    download_exact: exact,
    download_ms: round(performance.now() - started, 0),
    lab_name_status: byName === null ? 'not asked (WireGuard)' : (byName.status ?? byName.error),
    ...(info.error || download.error ? { error: info.error ?? download.error } : {}),
  };
}

export async function checkModernServers(lab: InProcessLab, client: ModernClient): Promise<Check> {
  const results = await Promise.all(lab.modern.map((spec) => guarded(() => checkServer(lab, client, spec))));
  const per = Object.fromEntries(lab.modern.map((spec, i) => [spec.id, results[i] as Check]));
  return { ok: results.length > 0 && results.every((r) => r.ok), servers: results.length, per_server: per };
}

/**
 * A UDP server's relay under blackhole and reset, through a real QUIC client: blackhole swallows
 * (a request does not complete and the relay counts the datagrams it dropped, none delivered),
 * reset closes the port and drops every session (the kernel answers ICMP port unreachable, which
 * quic-go never hears on its unconnected socket, so the request fails by the client's own
 * timeout), and after lifting both the server carries traffic again.
 */
export async function checkUdpFaults(lab: InProcessLab, client: ModernClient, spec: ModernServerSpec): Promise<Check> {
  const port = client.proxies[spec.id] as number;
  const url = urlThrough(spec, lab.info.target);
  const healthy = await fetchVia(port, url, 10_000);
  await lab.setFault(spec.id, { fault: 'blackhole' });
  const before = (await lab.counters()).servers[spec.id];
  const swallowed = await fetchVia(port, url, 3_000);
  const after = (await lab.counters()).servers[spec.id];
  await lab.setFault(spec.id, { fault: 'reset' });
  const reset = await fetchVia(port, url, 3_000);
  const sessionsDuringReset = (await lab.counters()).servers[spec.id]?.active ?? -1;
  await lab.setFault(spec.id, { fault: 'none' });
  let healed = await fetchVia(port, url, 10_000);
  for (let attempt = 0; !healed.ok && attempt < 3; attempt += 1) {
    await sleep(500);
    healed = await fetchVia(port, url, 10_000);
  }
  const datagramsDropped = (after?.bytesUp ?? 0) > (before?.bytesUp ?? 0) && (after?.bytesDown ?? 0) === (before?.bytesDown ?? 0);
  return {
    ok: healthy.status === 204 && !swallowed.ok && datagramsDropped && !reset.ok && sessionsDuringReset === 0 && healed.status === 204,
    server: spec.id,
    kind: spec.kind,
    healthy_status: healthy.status,
    blackhole: { ok: swallowed.ok, ms: round(swallowed.ms, 0), bytes_up_swallowed: (after?.bytesUp ?? 0) - (before?.bytesUp ?? 0) },
    reset: { ok: reset.ok, ms: round(reset.ms, 0), error: reset.error ?? reset.status, sessions: sessionsDuringReset },
    healed_status: healed.status,
  };
}
