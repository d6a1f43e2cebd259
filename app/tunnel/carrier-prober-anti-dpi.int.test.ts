/**
 * The monitor's probes of a server sing-box carries, with the anti-DPI options, seen where a
 * censor sees them: the app's settings → each server's options (antiDpiFor) → the CarrierProber
 * (Xray's prober core hosting the relays, sing-box's prober hosting the lab's AnyTLS server) →
 * a watching relay in front of the lab's own. With the fragment on, the probe's ClientHello
 * arrives in the configured pieces, as the tunnel's does (carried-anti-dpi.int.test.ts), and the
 * probe still answers; with it off (globally, or for that server), whole. Turning the options on
 * for a prober already running rebuilds both probers' cores.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectFragmented, expectWhole } from '../../e2e/lab/hello-pieces';
import { Relay } from '../../e2e/lab/relay';
import type { LabServerInfo } from '../../e2e/lab/types';
import { ClientChunkLog } from '../../e2e/lab/wire-watch';
import type { Server } from '../../shared/domain/server';
import { type AntiDpiSettings, antiDpiSettingsSchema } from '../../shared/settings';
import { antiDpiFor } from '../core/anti-dpi';
import { memoryLogger } from '../log/logger';
import { CarrierProber } from './carrier-prober';
import { serversFromLinks } from './testing/lab-servers';
import { useModernLab } from '../../e2e/lab/modern-lab-suite';

const modern = useModernLab('carrier-prober-anti-dpi-');
const { network, stops } = modern;
let prober: CarrierProber | null = null;

afterEach(async () => {
  await prober?.close();
  prober = null;
});

const hostPort = (address: string) => ({ host: address.slice(0, address.lastIndexOf(':')), port: Number(address.slice(address.lastIndexOf(':') + 1)) });

/** The lab's AnyTLS server as the app reads its share link, behind a relay that records what each client sends. */
async function watchedAnytls(id: string): Promise<{ info: LabServerInfo; server: Server; log: ClientChunkLog }> {
  const info = modern.lab.info.servers.find((s) => s.kind === 'anytls');
  if (!info) throw new Error(`the lab has no AnyTLS server: ${JSON.stringify(modern.lab.info.modern?.leftOut)}`);
  const linked = serversFromLinks([info.shareLink])[0]!;
  const log = new ClientChunkLog();
  const relay = new Relay({ frontAddress: '127.0.0.1', upstream: hostPort(info.relay), network, onClientData: log.hook });
  await relay.start();
  stops.push(() => relay.stop());
  const { host, port } = hostPort(relay.address);
  return { info, server: { ...linked, id, name: `AnyTLS ${id}`, address: host, port }, log };
}

/** A probe through the CarrierProber, to the lab's IP-info stand-in (it answers 200). */
async function probe(id: string) {
  expect(prober!.readiness(id), id).toEqual({ ready: true });
  return prober!.probe(id, { url: modern.lab.info.ipinfoUrls['ip-api.com']!, timeoutMs: 15_000, expectStatus: 200 });
}

const FRAGMENT = { enabled: true, packets: 'tlshello', length: '100-200', interval: '20-30' };
const NOISE = { enabled: true, type: 'rand', packet: '10-20', delay: '10-16' } as const;

describe('the monitor’s probe of an AnyTLS server sing-box carries, with the TLS ClientHello fragment', () => {
  it('on: the probe’s ClientHello reaches the server in the configured pieces and the probe answers; a server set to off: whole; the noise that cannot apply is said once', async () => {
    const on = await watchedAnytls('on');
    const off = await watchedAnytls('off');
    const settings = antiDpiSettingsSchema.parse({ fragment: FRAGMENT, noise: NOISE, servers: { off: 'off' } });
    const logged = memoryLogger('debug');
    prober = new CarrierProber({ core: modern.xray, carriers: [modern.singBox], runtimeDir: modern.runtimeDir, logger: logged.logger, rebuildDebounceMs: 20, antiDpi: (id) => antiDpiFor(settings, id) });
    prober.setServers([on.server, off.server]);
    await prober.settled();
    // The same list again (the monitor re-sets it on every change): nothing is said twice.
    prober.setServers([on.server, off.server]);
    await prober.settled();

    expect(await probe('on')).toMatchObject({ ok: true });
    expect(on.log.connections.length).toBeGreaterThan(0);
    const sni = (on.server.security as { sni?: string }).sni!;
    expectFragmented(on.log.connections[0]!.chunks, FRAGMENT, sni, 'fragment on');

    expect(await probe('off')).toMatchObject({ ok: true });
    expectWhole(off.log.connections[0]!.chunks, sni, 'a server set to off');

    const noiseNotes = logged.lines.filter((l) => l.includes('AnyTLS on: UDP noise does not apply to AnyTLS (AnyTLS on): it runs over TCP; probing without it'));
    expect(noiseNotes).toHaveLength(1);
    expect(logged.lines.some((l) => /prober core up with 0 servers \(2 not runnable, 1 anti-DPI relays/.test(l))).toBe(true);
  }, 120_000);

  it('off: the probe’s ClientHello is whole; turned on, both probers are rebuilt and the next probe’s ClientHello is in pieces', async () => {
    const first = await watchedAnytls('later');
    let settings: AntiDpiSettings = antiDpiSettingsSchema.parse({});
    prober = new CarrierProber({ core: modern.xray, carriers: [modern.singBox], runtimeDir: modern.runtimeDir, logger: memoryLogger('debug').logger, rebuildDebounceMs: 20, antiDpi: (id) => antiDpiFor(settings, id) });
    prober.setServers([first.server]);
    await prober.settled();
    expect(await probe('later')).toMatchObject({ ok: true });
    const sni = (first.server.security as { sni?: string }).sni!;
    expectWhole(first.log.connections[0]!.chunks, sni, 'fragment off');
    const seen = first.log.connections.length;

    settings = antiDpiSettingsSchema.parse({ fragment: FRAGMENT });
    prober.setServers([first.server]);
    await prober.settled();
    expect(await probe('later')).toMatchObject({ ok: true });
    // The rebuilt sing-box prober dials afresh: its first connection is the one after the change.
    const fresh = first.log.connections.slice(seen);
    expect(fresh.length).toBeGreaterThan(0);
    expectFragmented(fresh[0]!.chunks, FRAGMENT, sni, 'fragment turned on');
  }, 120_000);

  it('a probe under way through a relay when the server set changes still answers: the old sing-box core keeps the old Xray core it dials through', async () => {
    const slow = await watchedAnytls('slow');
    const added = await watchedAnytls('added');
    const settings = antiDpiSettingsSchema.parse({ fragment: FRAGMENT });
    prober = new CarrierProber({ core: modern.xray, carriers: [modern.singBox], runtimeDir: modern.runtimeDir, logger: memoryLogger('debug').logger, rebuildDebounceMs: 20, antiDpi: (id) => antiDpiFor(settings, id) });
    prober.setServers([slow.server]);
    await prober.settled();
    await modern.lab.setFault(slow.info.id, { fault: 'none', latencyMs: 300 });
    try {
      const inFlight = probe('slow');
      await new Promise((r) => setTimeout(r, 100));
      // A second relay: both probers' cores are rebuilt, the old ones retired.
      prober.setServers([slow.server, added.server]);
      await prober.settled();
      expect(await inFlight).toMatchObject({ ok: true });
      // It went through the relay (in pieces), which a retired core would have cut.
      expectFragmented(slow.log.connections[0]!.chunks, FRAGMENT, (slow.server.security as { sni?: string }).sni!, 'the probe under way');
      expect(await probe('added')).toMatchObject({ ok: true });
    } finally {
      await modern.lab.setFault(slow.info.id, { fault: 'none', latencyMs: slow.info.latencyMs });
    }
  }, 120_000);
});
