/**
 * What a settings change means. A pure rule decides it (`settingsEffects`, table-tested): what the
 * running cores must do, whether the routing is worked out again, which chains changed.
 * `carryOut` then hands every service its part of the new settings.
 */
import type { ServerId } from '../../shared/domain/server';
import type { ConnectionMode, MonitorSettings, Settings } from '../../shared/settings';
import type { SharingCredentials } from '../../shared/sharing';
import type { AutoConfig } from '../auto/policy/constants';
import { autoConfigFrom } from '../auto/runtime';
import type { LogLevel } from '../log/logger';
import type { TunnelPorts } from '../tunnel/controller';
import { type ChainChange, chainChange } from './chain-changes';

export interface SettingsEffects {
  /** The mode to put the system-wide capture in, when it changed. */
  mode: ConnectionMode | null;
  /** The tunnel's local inbounds, when they changed. */
  ports: TunnelPorts | null;
  /** The probe cores are rewritten: they carry the anti-DPI options, so tests measure the tunnel's path. */
  rewriteProbes: boolean;
  /** The core must start again on the same server (when connected): what it started with changed. */
  restartTunnel: boolean;
  /** The routing or the DNS changed: the core's routing is worked out again, and the window's view. */
  routing: boolean;
  /** The servers whose chosen chain changed, measured again by their new path. */
  chains: ChainChange;
}

/** The household's credentials, made on first use (app/sharing/credentials.ts). */
export type SharingCredentialsSource = () => SharingCredentials;

const NO_CREDENTIALS: SharingCredentialsSource = () => {
  throw new Error('household sharing has no credentials here');
};

/**
 * The tunnel's inbounds: on loopback without a password, and with household sharing on, the same
 * ports on the chosen LAN address behind the household's credentials. (`allowLan` opens nothing.)
 */
export function tunnelPorts(settings: Pick<Settings, 'httpPort' | 'socksPort' | 'sharing'>, credentials: SharingCredentialsSource = NO_CREDENTIALS): Required<TunnelPorts> {
  const { httpPort, socksPort, sharing } = settings;
  const share = sharing.enabled ? { address: sharing.address, httpPort, socksPort, ...accountOf(credentials()) } : null;
  return { httpPort, socksPort, listen: '127.0.0.1', share };
}

function accountOf(credentials: SharingCredentials): { username: string; password: string } {
  return { username: credentials.username, password: credentials.password };
}

/**
 * What the tunnel's core writes of a settings' anti-DPI options for the server it is on: only a
 * change of that restarts it (v2ray writes none, so a change there must not cut connections).
 */
export type TunnelAntiDpi = (settings: Settings) => unknown;

/** What the rule needs to know of the running app beside the two settings. */
export interface EffectsContext {
  /** What the tunnel's core writes of the anti-DPI options (absent: all of them count). */
  tunnelAntiDpi?: TunnelAntiDpi;
  /** The household's credentials, asked for when sharing is on. */
  credentials?: SharingCredentialsSource;
  /** The server the tunnel is on (a change of its chain reconnects it). */
  currentServer?: ServerId | null;
}

export function settingsEffects(previous: Settings, next: Settings, context: EffectsContext = {}): SettingsEffects {
  const { tunnelAntiDpi = (s: Settings) => s.antiDpi, credentials = NO_CREDENTIALS } = context;
  const before = tunnelPorts(previous, credentials);
  const after = tunnelPorts(next, credentials);
  const portsChanged = before.httpPort !== after.httpPort || before.socksPort !== after.socksPort || before.listen !== after.listen || JSON.stringify(before.share) !== JSON.stringify(after.share);
  // Only system-wide mode gives the core inbounds of its own (the transparent one); the system
  // proxy points the OS at the same local proxy as proxy mode does.
  // A change of Linux's capture method while system-wide puts the other capture in place, which
  // gives the core other inbounds: the core starts again.
  // So does a change of the per-app lists while system-wide: the capture is put in place anew with them.
  const captureChanged =
    (previous.mode === 'system-wide') !== (next.mode === 'system-wide') ||
    (next.mode === 'system-wide' && (previous.systemWideCapture !== next.systemWideCapture || JSON.stringify(previous.perApp) !== JSON.stringify(next.perApp)));
  const antiDpiChanged = JSON.stringify(previous.antiDpi) !== JSON.stringify(next.antiDpi);
  const tunnelAntiDpiChanged = antiDpiChanged && JSON.stringify(tunnelAntiDpi(previous)) !== JSON.stringify(tunnelAntiDpi(next));
  return {
    mode: next.mode !== previous.mode ? next.mode : null,
    ports: portsChanged ? after : null,
    rewriteProbes: antiDpiChanged,
    restartTunnel: captureChanged || tunnelAntiDpiChanged || portsChanged,
    routing: JSON.stringify(previous.routing) !== JSON.stringify(next.routing) || JSON.stringify(previous.dns) !== JSON.stringify(next.dns),
    chains: chainChange(previous.chains, next.chains, context.currentServer ?? null),
  };
}

/** What hears a settings change (each service's part of it). */
export interface SettingsTargets {
  capture: { setMode(mode: ConnectionMode): void };
  tunnel: { setPorts(ports: TunnelPorts): void } | null;
  /** Starts the core again on the same server when the VPN is up. */
  restartTunnel(): Promise<void>;
  rewriteProbes(): void;
  setLogLevel(level: LogLevel): void;
  monitor: { setSettings(settings: MonitorSettings): void };
  auto: { reconfigure(config: AutoConfig): void };
  reachability: { refresh(): void };
  /** Servers whose chain changed: they run by it again and are measured again (the tunnel's reconnects). */
  chainsChanged(change: ChainChange): void;
  /** What follows every change whatever it was (a rule set just chosen is fetched, the kill switch follows). */
  afterEach(): void;
  warn(line: string): void;
}

/** Hands every service its part of settings `next`, as `effects` say. */
export function carryOut(effects: SettingsEffects, next: Settings, t: SettingsTargets): void {
  if (effects.mode) t.capture.setMode(effects.mode);
  if (effects.ports) t.tunnel?.setPorts(effects.ports);
  if (effects.rewriteProbes) t.rewriteProbes();
  if (effects.restartTunnel) void t.restartTunnel().catch((error: unknown) => t.warn(`reconnect after the settings change failed: ${String(error)}`));
  t.setLogLevel(next.logLevel);
  t.monitor.setSettings(next.monitor);
  t.auto.reconfigure(autoConfigFrom(next));
  t.reachability.refresh();
  if (effects.chains.changed.length > 0) t.chainsChanged(effects.chains);
  t.afterEach();
}
