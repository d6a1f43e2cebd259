/**
 * The modern block keeps the lab's contract: every socket of the lab and of its Xray and sing-box
 * server processes on loopback (UDP included), the block's servers under the same control API and
 * counters, nothing left after a stop or a SIGKILL, and a machine without one of the cores still
 * gets the servers of the other, told which were left out.
 */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLabCore } from '../../app/core/testing/cores';
import { fetchVia } from './client';
import { type InProcessLab, splitAddress, startLab } from './lab';
import { HOP_INTERVAL_S, type ModernClient, startModernClient } from './modern-client';
import { startModernServers } from './modern-servers';
import { KIND_SHAPES, MODERN_KINDS, buildModernServers, urlThrough } from './modern-world';
import { LabNetwork } from './network';
import { descendants, isAlive, isLoopback, listenersOf, tcpListeners, udpOnLoopback, udpSockets, udpSocketsOf } from './proc-net';
import { spawnLab } from './spawn';
import type { LabState } from './types';

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return predicate();
}

const udpBound = (address: string, port: number) => udpSockets().some((s) => s.address === address && s.port === port);
const tcpListening = (address: string, port: number) => tcpListeners().some((l) => l.address === address && l.port === port);

describe('the lab with its modern block', () => {
  let lab: InProcessLab;

  beforeAll(async () => {
    lab = await startLab({ servers: 4, subscriptions: 1, modern: true });
  });

  afterAll(async () => {
    await lab?.stop();
  });

  it('lists the thirteen servers after the v2ray world, in subscription RC, each with its own exit and relay address', () => {
    const modern = lab.info.servers.filter((s) => s.subscription === 'RC');
    expect(lab.info.servers.slice(0, 4).map((s) => s.id)).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(modern.map((s) => s.kind)).toEqual([...MODERN_KINDS]);
    expect(modern.map((s) => s.carrier)).toEqual(MODERN_KINDS.map((k) => KIND_SHAPES[k].carrier));
    expect(new Set(lab.info.servers.map((s) => s.exitIp)).size).toBe(4 + MODERN_KINDS.length);
    expect(lab.info.subscriptions.map((s) => s.id)).toEqual(['A', 'RC']);
    expect(lab.info.modern).toEqual({ subscription: 'RC', leftOut: [] });
    expect(lab.info.servers.find((s) => s.kind === 'hysteria2-salamander-hopping')?.relayPorts).toHaveLength(4);
  });

  it('holds every TCP listener and every UDP socket of the lab, Xray and sing-box on loopback', () => {
    const pids = [process.pid, ...descendants(process.pid)];
    expect(lab.modernPids.every((pid) => pids.includes(pid))).toBe(true);
    expect(listenersOf(pids).filter((l) => !isLoopback(l))).toEqual([]);
    const udp = udpSocketsOf(pids);
    // the UDP relays' front ports at least (Hysteria2's four, TUIC, WireGuard) and the cores' UDP inbounds
    expect(udp.length).toBeGreaterThanOrEqual(6 + 3);
    expect(udp.filter((s) => !udpOnLoopback(s))).toEqual([]);
  });

  it('puts the block under the same control API and counters: a UDP server is reset, its port closed, then reopened', async () => {
    const tuic = lab.info.servers.find((s) => s.kind === 'tuic-v5')!;
    const port = Number(tuic.relay.split(':')[1]);
    expect(udpBound('127.3.0.8', port)).toBe(true);
    await lab.setFault(tuic.id, { fault: 'reset' });
    expect(udpBound('127.3.0.8', port)).toBe(false);
    const state = (await lab.state()) as LabState;
    expect(state.servers.find((s) => s.id === tuic.id)).toMatchObject({ fault: 'reset', protocol: 'tuic', exitIp: tuic.exitIp });
    await lab.setFault(tuic.id, { fault: 'none' });
    expect(udpBound('127.3.0.8', port)).toBe(true);

    const before = (await lab.counters()).servers[tuic.id]!;
    const socket = createSocket('udp4');
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    await new Promise<void>((r) => socket.send('not quic', port, '127.3.0.8', () => r()));
    socket.close();
    let after = (await lab.counters()).servers[tuic.id]!;
    for (let i = 0; i < 40 && after.bytesUp === before.bytesUp; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      after = (await lab.counters()).servers[tuic.id]!;
    }
    expect(after.connections).toBe(before.connections + 1);
    expect(after.bytesUp).toBe(before.bytesUp + 8);
    await expect(lab.setFault(tuic.id, { fault: 'sideways' } as never)).rejects.toThrow(/fault/);
  });

  it('stops with no Xray or sing-box left and no TCP or UDP port bound', async () => {
    const pids = [...lab.modernPids];
    const fronts = lab.info.servers
      .filter((s) => s.subscription === 'RC')
      .flatMap((s) => (s.relayPorts ?? [Number(s.relay.split(':')[1])]).map((port) => ({ host: s.relay.split(':')[0]!, port, carrier: s.carrier })));
    await lab.stop();
    expect(await waitFor(() => pids.every((pid) => !isAlive(pid)), 5000)).toBe(true);
    expect(fronts.filter((f) => (f.carrier === 'udp' ? udpBound(f.host, f.port) : tcpListening(f.host, f.port)))).toEqual([]);
  });
});

describe('the modern block on a machine with only one of the cores', () => {
  it('hosts the kinds of the core it has and names the others with the reason', async () => {
    const specs = buildModernServers(1, [5, 10]);
    const started = await startModernServers({ specs, cores: { xray: null, 'sing-box': findLabCore('sing-box') }, resolver: '127.0.0.1:9', network: new LabNetwork(), seed: 1 });
    try {
      expect(started.running.map((r) => r.spec.kind)).toEqual(['hysteria2-salamander-hopping', 'tuic-v5', 'shadowtls-v3', 'anytls', 'hysteria-v1']);
      expect(started.leftOut.map((l) => l.kind)).toEqual(specs.filter((s) => s.core === 'xray').map((s) => s.kind));
      expect(new Set(started.leftOut.map((l) => l.reason))).toEqual(new Set(['the xray core is not on this machine']));
    } finally {
      await started.stop();
    }
  });
});

describe('npm run lab -- --modern', () => {
  it('leaves no Xray, sing-box or port behind when SIGKILLed', async () => {
    const lab = await spawnLab(['--servers', '4', '--subscriptions', '1', '--modern']);
    const children = descendants(lab.pid);
    const udpFronts = lab.info.servers.filter((s) => s.carrier === 'udp').map((s) => ({ host: s.relay.split(':')[0]!, port: Number(s.relay.split(':')[1]) }));
    expect(lab.info.servers).toHaveLength(4 + MODERN_KINDS.length);
    expect(children.length).toBeGreaterThanOrEqual(6); // v2ray, Xray and sing-box, each with its guard
    process.kill(lab.pid, 'SIGKILL');
    await lab.stop();
    expect(await waitFor(() => children.every((pid) => !isAlive(pid)), 5000)).toBe(true);
    expect(await waitFor(() => udpFronts.every((f) => !udpBound(f.host, f.port)), 3000)).toBe(true);
  });
});

describe('the UDP relay’s faults through real QUIC and WireGuard clients', () => {
  let lab: InProcessLab;
  let client: ModernClient;
  const hy2 = 'RC7';
  const wg = 'RC9';

  beforeAll(async () => {
    lab = await startLab({ servers: 4, subscriptions: 1, modern: true, latency: [0, 0] });
    const routes = lab.modern
      .filter((s) => s.id === hy2 || s.id === wg)
      .map((spec) => {
        const info = lab.info.servers.find((s) => s.id === spec.id)!;
        const [host, port] = splitAddress(info.relay);
        return { spec, dial: { host, port, ports: info.relayPorts } };
      });
    client = await startModernClient(routes, lab.modernPin, { xray: findLabCore('xray'), 'sing-box': findLabCore('sing-box') });
  });

  afterAll(async () => {
    await client?.stop();
    await lab?.stop();
  });

  const spec = (id: string) => lab.modern.find((s) => s.id === id)!;
  const via = (id: string, url: string, timeoutMs: number) => fetchVia(client.proxies[id]!, urlThrough(spec(id), url), timeoutMs);

  it.each([hy2, wg])('%s: latency is added to each datagram each way, so a request on a warm tunnel costs a round trip more', async (id) => {
    expect((await via(id, lab.info.target, 10_000)).status).toBe(204); // the tunnel is up
    const quick = await via(id, lab.info.target, 10_000);
    await lab.setFault(id, { latencyMs: 150 });
    const slow = await via(id, lab.info.target, 10_000);
    await lab.setFault(id, { latencyMs: 0 });
    expect(slow.status).toBe(204);
    expect(slow.ms - quick.ms).toBeGreaterThanOrEqual(280);
  });

  it.each([hy2, wg])('%s: throttle caps a download near bytesPerSecond, and it still completes', async (id) => {
    await lab.setFault(id, { fault: 'throttle', bytesPerSecond: 128 * 1024 });
    const download = await via(id, `${lab.info.download}?bytes=${512 * 1024}`, 30_000);
    await lab.setFault(id, { fault: 'none' });
    expect(download.body.length).toBe(512 * 1024);
    const rate = download.body.length / (download.ms / 1000);
    expect(rate).toBeLessThan(128 * 1024 * 1.3);
  });

  it('Hysteria2 port hopping: the client moves across the relay’s range and the one server keeps serving', async () => {
    const started = Date.now();
    let answered = 0;
    while (Date.now() - started < 3 * HOP_INTERVAL_S * 1000) {
      if ((await via(hy2, lab.info.target, 5_000)).status === 204) answered += 1;
      await new Promise((r) => setTimeout(r, 500));
    }
    const byPort = (await lab.counters()).servers[hy2]!.datagramsByPort!;
    expect(Object.values(byPort).filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    expect(answered).toBeGreaterThanOrEqual(20);
  });

  it('freeze: a QUIC session that already carried more than afterBytes goes silent, the download stalls; lifting it lets the tunnel work again', async () => {
    await lab.setFault(hy2, { fault: 'freeze', afterBytes: 64 * 1024 });
    const frozen = await via(hy2, `${lab.info.download}?bytes=${1024 * 1024}`, 4_000);
    await lab.setFault(hy2, { fault: 'none' });
    expect(frozen.ok).toBe(false);
    expect(frozen.body.length).toBeLessThan(1024 * 1024);
    let healed = await via(hy2, lab.info.target, 10_000);
    for (let i = 0; i < 3 && healed.status !== 204; i += 1) healed = await via(hy2, lab.info.target, 10_000);
    expect(healed.status).toBe(204);
  });
});
