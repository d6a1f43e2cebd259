/**
 * Starts the whole lab in this process: the v2ray servers, with `modern` also the Xray- and
 * sing-box-hosted block (modern-servers.ts), a fault relay in front of each (TCP or UDP), the
 * target, the subscription server and the control API. `stop()` takes every piece down again.
 */
import { ControlServer } from './control-server';
import { LabController, type RunningServer } from './controller';
import { HOME, type Place } from './geo';
import { LabNetwork } from './network';
import { seeded } from '../../app/testing/random';
import { Relay } from './relay';
import { shareLink } from './share-links';
import { SubscriptionServer } from './subscription-server';
import { Target } from './target';
import type { Lab, LabInfo, LabOptions } from './types';
import { LAB_ZONE, startServers } from './v2ray-server';
import { DnsResolverStandIn } from './dns-resolver';
import { type World, buildWorld } from './world';
import { findLabCore } from '../../app/core/testing/cores';
import { modernShareLink } from './modern-links';
import { startModernServers } from './modern-servers';
import { MODERN_SUBSCRIPTION, type ModernServerSpec, buildModernServers } from './modern-world';
import type { LinkServed } from './subscription-formats';

export const DEFAULT_LAB_OPTIONS = { servers: 12, subscriptions: 3, seed: 1, latency: [20, 300] as [number, number] };

export interface InProcessLab extends Lab {
  /** The control operations, for callers that want them without HTTP. */
  controller: LabController;
  /** v2ray's pid (through its guard), for tests that check clean-up. */
  v2rayPid: number;
  /** The world as data (credentials included), e.g. for building a client with client.ts. */
  world: World;
  /** The modern block as data (credentials and keys included), when `modern` was asked for; [] otherwise. */
  modern: ModernServerSpec[];
  /** Pids of the Xray and sing-box server processes of the modern block. */
  modernPids: number[];
  /** SHA-256 of the certificate the modern block's TLS servers present ('' without the block). */
  modernPin: string;
  /**
   * The certificate of the modern block's TLS servers and of the lab's own TLS site (PEM; '' without
   * the block). A test that needs a client to trust the lab's sites the way a machine trusts a real
   * site's certificate puts it in the client's system store (`SSL_CERT_FILE` for Go cores).
   */
  modernCertificatePem: string;
  /** SHA-256 (hex) of what the target served for `/bytes/N?tag=…`, once served whole. */
  servedDigest(tag: string): string | undefined;
}

export async function startLab(options: LabOptions = {}): Promise<InProcessLab> {
  const world = buildWorld({
    servers: options.servers ?? DEFAULT_LAB_OPTIONS.servers,
    subscriptions: options.subscriptions ?? DEFAULT_LAB_OPTIONS.subscriptions,
    seed: options.seed ?? DEFAULT_LAB_OPTIONS.seed,
    latency: options.latency ?? DEFAULT_LAB_OPTIONS.latency,
  });
  const network = new LabNetwork();
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    // The lab's names (*.lab.test) all lead to the target; servers resolve them here, never with
    // the machine's resolver.
    const resolver = await new DnsResolverStandIn((name) => (name === LAB_ZONE || name.endsWith(`.${LAB_ZONE}`) ? '127.0.0.1' : null)).start();
    cleanups.push(() => resolver.stop());
    // The modern block starts beside the v2ray world: its cores take most of a second to be ready.
    const modernStarting = options.modern
      ? startModernServers({
          specs: buildModernServers(world.seed, options.latency ?? DEFAULT_LAB_OPTIONS.latency),
          cores: { xray: options.xrayPath ?? findLabCore('xray'), 'sing-box': options.singBoxPath ?? findLabCore('sing-box') },
          resolver: resolver.address(),
          network,
          seed: world.seed,
        })
      : null;
    if (modernStarting) {
      // Handled here so a failure while the v2ray world starts is no unhandled rejection; the
      // await below still throws it.
      modernStarting.catch(() => undefined);
      cleanups.push(async () => (await modernStarting.catch(() => null))?.stop());
    }
    const v2ray = await startServers(world.servers, options.v2rayPath ?? 'v2ray', resolver.address());
    cleanups.push(() => v2ray.stop());
    for (const spec of world.servers) spec.certificatePin = spec.security === 'tls' ? v2ray.certificatePin : null;

    const servers = new Map<string, RunningServer>();
    const relays = world.servers.map(
      (spec, i) =>
        new Relay({
          frontAddress: spec.relayAddress,
          upstream: { host: '127.0.0.1', port: v2ray.ports[i] as number },
          latencyMs: spec.latencyMs,
          network,
          random: seeded(world.seed, 'jitter', spec.index),
        }),
    );
    world.servers.forEach((spec, i) => servers.set(spec.id, { spec, relay: relays[i] as Relay }));
    cleanups.push(async () => {
      await Promise.all(relays.map((r) => r.stop()));
    });
    await Promise.all(relays.map((r) => r.start()));

    const modern = modernStarting ? await modernStarting : null;
    for (const r of modern?.running ?? []) servers.set(r.spec.id, { spec: r.spec, relay: r.relay });
    const modernLinks = new Map(
      (modern?.running ?? []).map((r) => {
        const [host, port] = splitAddress(r.relay.address);
        return [r.spec.id, modernShareLink(r.spec, { host, port, ports: r.frontPorts }, modern?.pin ?? '')];
      }),
    );

    const places = new Map<string, Place>([...servers.values()].map(({ spec }) => [spec.exitIp, spec.place]));
    const target = new Target(network, (source) => places.get(source) ?? HOME);
    cleanups.push(() => target.stop());
    await target.start();

    const v2raySpecs = new Map(world.servers.map((spec) => [spec.id, spec]));
    const dialOf = (id: string) => {
      const link = modernLinks.get(id);
      if (link) return { link } satisfies LinkServed;
      const server = servers.get(id);
      const spec = v2raySpecs.get(id);
      if (!server || !spec) return undefined;
      const [host, port] = splitAddress(server.relay.address);
      return { spec, dial: { host, port } };
    };
    const subscriptionSpecs = modern
      ? [...world.subscriptions, { id: MODERN_SUBSCRIPTION, title: 'Lab real cores 🧪', serverIds: modern.running.map((r) => r.spec.id) }]
      : world.subscriptions;
    const subscriptions = new SubscriptionServer(subscriptionSpecs, dialOf, network, world.seed);
    cleanups.push(() => subscriptions.stop());
    await subscriptions.start();

    const controller = new LabController(servers, target, subscriptions, network);
    const control = new ControlServer(controller);
    cleanups.push(() => control.stop());
    await control.start();

    const ipinfoUrls = target.ipInfoUrls();
    const info: LabInfo = {
      control: control.url,
      subscriptions: subscriptionSpecs.map((s) => ({ id: s.id, url: subscriptions.url(s.id) })),
      target: `${target.base}/generate_204`,
      targetIpv6: target.ipv6Base ? `${target.ipv6Base}/generate_204` : null,
      targetByName: `${target.baseByName}/generate_204`,
      zone: LAB_ZONE,
      resolver: resolver.address(),
      ipinfo: ipinfoUrls['ipapi.co'],
      ipinfoUrls,
      download: `${target.base}/download`,
      bytes: `${target.base}/bytes`,
      servers: [
        ...world.servers.map((spec) => {
          const relay = (servers.get(spec.id) as RunningServer).relay;
          const [host, port] = splitAddress(relay.address);
          return {
            id: spec.id,
            subscription: spec.subscription,
            protocol: spec.protocol,
            hostedBy: 'v2ray' as const,
            relay: relay.address,
            carrier: 'tcp' as const,
            exitIp: spec.exitIp,
            country: spec.place.code,
            latencyMs: spec.latencyMs,
            ipv6: spec.ipv6,
            shareLink: shareLink(spec, { host, port }),
          };
        }),
        ...(modern?.running ?? []).map(({ spec, relay, frontPorts }) => ({
          id: spec.id,
          subscription: spec.subscription,
          protocol: spec.protocol,
          kind: spec.kind,
          hostedBy: spec.core,
          relay: relay.address,
          ...(frontPorts.length > 1 ? { relayPorts: [...frontPorts] } : {}),
          carrier: spec.carrier,
          exitIp: spec.exitIp,
          country: spec.place.code,
          latencyMs: spec.latencyMs,
          // The modern servers leave only from their IPv4 exit address.
          ipv6: false,
          shareLink: modernLinks.get(spec.id) as string,
        })),
      ],
      ...(modern ? { modern: { subscription: MODERN_SUBSCRIPTION, leftOut: modern.leftOut } } : {}),
    };
    let stopping: Promise<void> | null = null;
    return {
      info,
      controller,
      world,
      modern: modern?.running.map((r) => r.spec) ?? [],
      modernPids: Object.values(modern?.pids ?? {}),
      modernPin: modern?.pin ?? '',
      modernCertificatePem: modern?.certificatePem ?? '',
      servedDigest: (tag) => target.servedDigest(tag),
      v2rayPid: v2ray.pid,
      setFault: async (id, f) => {
        await controller.setFault(id, f);
      },
      setNetwork: async (state) => controller.setNetwork({ state }),
      setSubscription: async (id, change) => {
        controller.setSubscription(id, change);
      },
      setIpInfo: async (service, mode) => {
        controller.setIpInfo(service, { mode });
      },
      counters: async () => controller.counters(),
      state: async () => controller.state(),
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), Number(address.slice(i + 1))];
}
