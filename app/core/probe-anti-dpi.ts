/**
 * The anti-DPI options of the monitor's probes of servers a carrier (sing-box) hosts: the ones
 * the tunnel would apply to each (carriedAntiDpi), by the tunnel's path, so a probe tests what
 * the tunnel will do for a user behind DPI. The main prober core (Xray) gets a relay per such
 * server (proberConfig's `relays`: a loopback SOCKS5 inbound routed to that server's freedom
 * outbound), and the carrier's prober dials the server's first hop through it
 * (singBoxProberConfig's `antiDpi`). A server for which nothing applies gets no relay and is
 * dialled directly. Pure; the rules are in probe-anti-dpi.test.ts.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import { type AntiDpiOptions, writableAntiDpi } from './anti-dpi';
import type { CoreProfile } from './capabilities';
import { chooseCarrier } from './carrier';
import { carriedAntiDpi } from './carried-anti-dpi';

export interface ProbeRelayInput {
  /** The carried server whose probes go through this relay. */
  serverId: ServerId;
  /** What the main core writes for it. */
  antiDpi: AntiDpiOptions;
  /** Its first hop is reached over UDP: the relay takes UDP ASSOCIATE too. */
  udp: boolean;
}

/**
 * The relays the main prober core hosts for `servers` (each server's options from `antiDpi`),
 * and what of the asked options is not applied, each note naming its server (for the log).
 */
export function probeRelays(
  servers: readonly Server[],
  antiDpi: ((serverId: ServerId) => AntiDpiOptions | null) | undefined,
  main: CoreProfile,
  carriers: readonly CoreProfile[],
): { relays: ProbeRelayInput[]; notApplied: string[] } {
  const byId = new Map(servers.map((s) => [s.id, s]));
  const relays: ProbeRelayInput[] = [];
  const notApplied: string[] = [];
  for (const server of servers) {
    const via = server.via ? byId.get(server.via) : undefined;
    // A server whose upstream is missing is not probed at all (the prober says why).
    if (server.via && !via) continue;
    if (chooseCarrier(server, via, main, carriers).kind !== 'carried') continue;
    const carried = carriedAntiDpi(antiDpi?.(server.id) ?? null, main, via ?? server);
    notApplied.push(...carried.notApplied.map((why) => `${server.name}: ${why}`));
    if (carried.written) relays.push({ serverId: server.id, antiDpi: carried.written, udp: carried.udp });
  }
  return { relays, notApplied };
}

/**
 * Whether a test of `server` really has its TLS ClientHello fragmented (the transfer test notes
 * it): by the main core's own outbound, or for a carried server by the relay, where carriedAntiDpi
 * leaves the fragment out for what it cannot cut (a ClientHello inside QUIC, ShadowTLS v3's).
 */
export function fragmentApplied(options: AntiDpiOptions | null, server: Server, via: Server | undefined, main: CoreProfile, carriers: readonly CoreProfile[]): boolean {
  if (chooseCarrier(server, via, main, carriers).kind === 'carried') return !!carriedAntiDpi(options, main, via ?? server).written?.fragment;
  return !!writableAntiDpi(options, main)?.fragment;
}
