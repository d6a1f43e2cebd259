/**
 * Runs the modern block: the lab's TLS site, one Xray and one sing-box server process (each
 * supervised, so a SIGKILLed lab leaves neither behind), and a fault relay in front of every
 * server: TCP or UDP as the protocol needs, a port range for the hopping Hysteria2. A core that
 * is not on the machine leaves its kinds out, and says so, rather than failing the lab.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSupervised } from '../../app/process/supervised';
import { seeded } from '../../app/testing/random';
import { freePorts } from '../../app/tunnel/ports';
import { type RunningCore, SING_BOX_STARTED, XRAY_STARTED, startCore } from './core-process';
import type { FaultRelay } from './fault-relay';
import { singBoxPortsNeeded, singBoxServerConfig, xrayServerConfig } from './modern-configs';
import { HOPPING_PORTS, type ModernCore, type ModernServerSpec } from './modern-world';
import type { LabNetwork } from './network';
import { Relay } from './relay';
import { UdpRelay } from './relay-udp';
import { type LabCertificate, type TlsSite, makeModernCertificate, startTlsSite } from './tls-site';

export interface RunningModernServer {
  spec: ModernServerSpec;
  relay: FaultRelay;
  /** Every front port (several for a hopping range). */
  frontPorts: readonly number[];
}

export interface ModernServers {
  running: RunningModernServer[];
  /** Kinds left out, with why (a core missing on this machine). */
  leftOut: { id: string; kind: string; reason: string }[];
  /** SHA-256 of the certificate the TLS servers present (share links' `pcs`). */
  pin: string;
  /** That certificate (PEM, public): what a machine trusting the lab's sites puts in its store. */
  certificatePem: string;
  site: TlsSite;
  pids: Partial<Record<ModernCore, number>>;
  stop(): Promise<void>;
}

export interface ModernStartOptions {
  specs: ModernServerSpec[];
  /** Path of each core, or null where the machine lacks it. */
  cores: Record<ModernCore, string | null>;
  resolver: string;
  network: LabNetwork;
  seed: number;
}

export async function startModernServers(options: ModernStartOptions): Promise<ModernServers> {
  const dir = await mkdtemp(join(tmpdir(), 'steadfast-lab-modern-'));
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    const cert = await makeModernCertificate(dir);
    const certificatePem = await readFile(cert.certificateFile, 'utf8');
    const site = await startTlsSite(cert);
    stops.push(() => site.stop());
    const leftOut: ModernServers['leftOut'] = [];
    const hosted = options.specs.filter((s) => {
      if (options.cores[s.core]) return true;
      leftOut.push({ id: s.id, kind: s.kind, reason: `the ${s.core} core is not on this machine` });
      return false;
    });
    const ports = new Map<string, number>();
    const pids: ModernServers['pids'] = {};
    const xraySpecs = hosted.filter((s) => s.core === 'xray');
    const singBoxSpecs = hosted.filter((s) => s.core === 'sing-box');
    // Side by side: each core's start-up is mostly waiting for it to be ready.
    const [xray, singBox] = await Promise.allSettled([
      xraySpecs.length > 0 ? startXray(options.cores.xray as string, xraySpecs, cert, site, options.resolver, dir) : null,
      singBoxSpecs.length > 0 ? startSingBox(options.cores['sing-box'] as string, singBoxSpecs, cert, site, options.resolver, dir) : null,
    ]);
    for (const [core, result, specs] of [['xray', xray, xraySpecs], ['sing-box', singBox, singBoxSpecs]] as const) {
      if (result.status === 'fulfilled' && result.value) {
        const running = result.value;
        stops.push(running.stop);
        pids[core] = running.pid;
        specs.forEach((s, i) => ports.set(s.id, running.ports[i] as number));
      }
    }
    for (const result of [xray, singBox]) if (result.status === 'rejected') throw result.reason;
    // Both cores have read their keys and certificate: nothing secret stays in /tmp.
    await rm(dir, { recursive: true, force: true });

    const running: RunningModernServer[] = hosted.map((spec) => {
      const common = {
        frontAddress: spec.relayAddress,
        upstream: { host: '127.0.0.1', port: ports.get(spec.id) as number },
        latencyMs: spec.latencyMs,
        network: options.network,
        random: seeded(options.seed, 'modern-jitter', spec.index),
      };
      const relay =
        spec.carrier === 'udp' ? new UdpRelay({ ...common, portCount: spec.kind === 'hysteria2-salamander-hopping' ? HOPPING_PORTS : 1 }) : new Relay(common);
      return { spec, relay, frontPorts: [] };
    });
    stops.push(async () => {
      await Promise.all(running.map((r) => r.relay.stop()));
    });
    await Promise.all(running.map((r) => r.relay.start()));
    for (const r of running) r.frontPorts = r.relay instanceof UdpRelay ? r.relay.frontPorts : [Number(r.relay.address.slice(r.relay.address.lastIndexOf(':') + 1))];
    return { running, leftOut, pin: cert.sha256, certificatePem, site, pids, stop: stopAll };
  } catch (error) {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startXray(path: string, specs: ModernServerSpec[], cert: LabCertificate, site: TlsSite, resolver: string, dir: string): Promise<RunningCore> {
  return startCore('xray', async () => {
    const ports = await freePorts(specs.length);
    const file = join(dir, 'xray-servers.json');
    await writeFile(file, JSON.stringify(xrayServerConfig(specs, ports, cert, site.address, resolver)), { mode: 0o600 });
    const tcp = specs.map((s, i) => (s.carrier === 'tcp' ? ports[i] : undefined)).filter((p): p is number => p !== undefined);
    return { ports, tcp, child: spawnSupervised(path, ['run', '-c', file]), ready: XRAY_STARTED };
  });
}

async function startSingBox(path: string, specs: ModernServerSpec[], cert: LabCertificate, site: TlsSite, resolver: string, dir: string): Promise<RunningCore> {
  return startCore('sing-box', async () => {
    const all = await freePorts(specs.reduce((n, s) => n + singBoxPortsNeeded(s), 0));
    let next = 0;
    const perServer = specs.map((s) => all.slice(next, (next += singBoxPortsNeeded(s))));
    const file = join(dir, 'sing-box-servers.json');
    await writeFile(file, JSON.stringify(singBoxServerConfig(specs, perServer, cert, site.port, resolver)), { mode: 0o600 });
    const tcp = specs.map((s, i) => (s.carrier === 'tcp' ? perServer[i]?.[0] : undefined)).filter((p): p is number => p !== undefined);
    return { ports: perServer.map((p) => p[0] as number), tcp, child: spawnSupervised(path, ['run', '-c', file, '--disable-color']), ready: SING_BOX_STARTED };
  });
}
