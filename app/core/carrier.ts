/**
 * Which core carries a server: the main core (Xray, or v2ray) when it can; else a carrier
 * (sing-box) that can, as a second process the main core dials as a local SOCKS5 proxy, so the
 * tunnel's routing, counters and Auto stay on the main core; else nobody, with the main core's
 * reason and each carrier's. Pure; the rules are in carrier.test.ts.
 */
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, coreLabel } from './capabilities';
import { unsupportedReason } from './support';

export type CarrierChoice =
  | { kind: 'main'; core: CoreProfile }
  /** `note` is what the server's details say: "carried by sing-box 1.14.1: not supported by Xray 26.3.27: …". */
  | { kind: 'carried'; core: CoreProfile; mainReason: string; note: string }
  | { kind: 'unsupported'; reason: string };

export function chooseCarrier(server: Server, via: Server | undefined, main: CoreProfile, carriers: readonly CoreProfile[]): CarrierChoice {
  const mainReason = unsupportedReason(server, main, via);
  if (mainReason === null) return { kind: 'main', core: main };
  const refusals: string[] = [];
  for (const carrier of carriers) {
    const reason = unsupportedReason(server, carrier, via);
    if (reason === null) return { kind: 'carried', core: carrier, mainReason, note: `carried by ${coreLabel(carrier)}: ${mainReason}` };
    refusals.push(reason);
  }
  return { kind: 'unsupported', reason: [mainReason, ...refusals].join('; ') };
}

/**
 * What the main core dials in a carried server's place: the carrier's loopback SOCKS5 inbound on
 * `port`, under the server's own id and name (the main connection's `proxy`, or a group's pick).
 */
export function carrierStandIn(server: Server, port: number): Server {
  const { id, subscriptionId, name } = server;
  return { id, subscriptionId, name, protocol: 'socks', address: '127.0.0.1', port, transport: { network: 'tcp' }, security: { type: 'none' } };
}
