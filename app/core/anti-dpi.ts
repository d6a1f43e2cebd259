/**
 * Xray's anti-DPI options (its `freedom` outbound's `fragment` and `noises`): the TLS ClientHello
 * cut into small pieces with pauses between them (a filter reading the server name from single
 * packets cannot see it), and UDP noise packets sent before a UDP connection. They are written as
 * a freedom outbound the server's own outbound dials through (`sockopt.dialerProxy`); for a
 * chained server, its first hop dials through it, since that is the connection the network sees.
 *
 * Written only for a core that has them, which its config test confirms (detect.ts:
 * `freedom-fragment`, `freedom-noises`): the part it lacks is left out and `antiDpiUnavailable`
 * says why. v2ray has neither.
 */
import type { Server } from '../../shared/domain/server';
import type { AntiDpiSettings } from '../../shared/settings';
import type { CoreProfile } from './capabilities';

type Json = Record<string, unknown>;

export interface FragmentOptions {
  /** "tlshello" (the ClientHello only) or a range of packet numbers, "1-3". */
  packets: string;
  /** Bytes per piece, "100-200". */
  length: string;
  /** Milliseconds between pieces, "10-20". */
  interval: string;
}

export interface NoiseOptions {
  type: 'rand' | 'str' | 'base64';
  /** For `rand` a length range, "10-20"; for `str` the text; for `base64` the bytes. */
  packet: string;
  /** Milliseconds after the noise, "10-16". */
  delay: string;
}

export interface AntiDpiOptions {
  fragment: FragmentOptions | null;
  noise: NoiseOptions | null;
}

/** The freedom outbound the server's connections are dialled through. */
export const ANTI_DPI_TAG = 'anti-dpi';

export function antiDpiActive(options: AntiDpiOptions | null | undefined): options is AntiDpiOptions {
  return !!options && (options.fragment !== null || options.noise !== null);
}

/**
 * Xray hops a Hysteria2 server's ports only from the outermost dialer ("udphop requires being at
 * the outermost level"): dialled through the anti-DPI outbound, every connection to such a server
 * failed (found with Xray 26.3.27). The options are left out for it.
 */
function hopsPorts(firstHop: Server | undefined): boolean {
  return firstHop?.protocol === 'hysteria2' && !!firstHop.portHopping;
}

/**
 * Why these options cannot all be written for this core (and the server's first hop, the
 * connection they apply to), for the log (null: they can).
 */
export function antiDpiUnavailable(options: AntiDpiOptions, core: CoreProfile, firstHop?: Server): string | null {
  const features = core.capabilities.features;
  const name = core.family === 'xray' ? `Xray ${core.version}` : `${core.family} ${core.version}`;
  if (hopsPorts(firstHop)) return `${name} cannot hop the ports of a Hysteria2 server (${firstHop!.name}) through the anti-DPI options`;
  if (options.fragment && !features.has('freedom-fragment')) return `TLS ClientHello fragment is not available with ${name} (it needs Xray)`;
  if (options.noise && !features.has('freedom-noises')) return `UDP noise is not available with ${name} (it needs a recent Xray)`;
  if (!features.has('dialerProxy')) return `${name} cannot dial a server through another outbound`;
  return null;
}

/**
 * The part of the options this core can write: one it lacks is left out and the other kept (Xray
 * 1.8 splits the ClientHello without noise); null when nothing is left, or when the first hop (the
 * connection the options apply to) is a Hysteria2 server that hops ports.
 */
export function writableAntiDpi(options: AntiDpiOptions | null | undefined, core: CoreProfile, firstHop?: Server): AntiDpiOptions | null {
  if (!antiDpiActive(options) || hopsPorts(firstHop)) return null;
  const can = antiDpiAbilities(core);
  const kept = { fragment: can.fragment ? options.fragment : null, noise: can.noise ? options.noise : null };
  return antiDpiActive(kept) ? kept : null;
}

/** The freedom outbound carrying the options (the writable part: see `writableAntiDpi`). */
export function antiDpiOutbound(options: AntiDpiOptions, tag = ANTI_DPI_TAG): Json {
  const settings: Json = {};
  if (options.fragment) settings.fragment = { packets: options.fragment.packets, length: options.fragment.length, interval: options.fragment.interval };
  if (options.noise) settings.noises = [{ type: options.noise.type, packet: options.noise.packet, delay: options.noise.delay }];
  return { tag, protocol: 'freedom', settings };
}

/** Makes `outbound` (the one that dials the server's address) dial through the anti-DPI outbound. */
export function dialThroughAntiDpi(outbound: Json, tag = ANTI_DPI_TAG): Json {
  const stream = (outbound.streamSettings as Json | undefined) ?? {};
  return { ...outbound, streamSettings: { ...stream, sockopt: { ...((stream.sockopt as Json | undefined) ?? {}), dialerProxy: tag } } };
}

/**
 * The options one server gets from the settings: the globally enabled ones; for a server set to
 * `on`, all configured ones; for one with values of its own, those it enables; none for a server
 * set to `off`. Null when nothing applies.
 */
export function antiDpiFor(settings: AntiDpiSettings, serverId: string): AntiDpiOptions | null {
  const override = settings.servers[serverId];
  if (override === 'off') return null;
  const own = typeof override === 'object' ? override : null;
  const { enabled: fragmentEnabled, ...fragment } = own?.fragment ?? settings.fragment;
  const { enabled: noiseEnabled, ...noise } = own?.noise ?? settings.noise;
  const options = { fragment: override === 'on' || fragmentEnabled ? fragment : null, noise: override === 'on' || noiseEnabled ? noise : null };
  return antiDpiActive(options) ? options : null;
}

/** Which anti-DPI options this core can write (each confirmed by its config test), as the UI shows it. */
export function antiDpiAbilities(core: CoreProfile): { fragment: boolean; noise: boolean } {
  const features = core.capabilities.features;
  const dials = features.has('dialerProxy');
  return { fragment: dials && features.has('freedom-fragment'), noise: dials && features.has('freedom-noises') };
}
