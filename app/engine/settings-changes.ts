/**
 * Where a settings change goes. What it means for the running cores is decided by a pure rule
 * (`settingsEffects`, table-tested); `SettingsFanOut` carries it out and hands every service its
 * part of the new settings.
 */
import type { RoutingView } from '../../shared/domain/routing';
import type { ConnectionMode, MonitorSettings, Settings } from '../../shared/settings';
import type { SharingCredentials } from '../../shared/sharing';
import type { AutoConfig } from '../auto/policy/constants';
import { autoConfigFrom } from '../auto/runtime';
import type { LogLevel } from '../log/logger';
import type { TunnelPorts } from '../tunnel/controller';

export interface SettingsEffects {
  /** The mode to put the system-wide capture in, when it changed. */
  mode: ConnectionMode | null;
  /** The tunnel's local inbounds, when they changed. */
  ports: TunnelPorts | null;
  /** The probe cores are rewritten: they carry the anti-DPI options, so tests measure the tunnel's path. */
  rewriteProbes: boolean;
  /** The core must start again on the same server (when connected): what it started with changed. */
  restartTunnel: boolean;
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

export function settingsEffects(
  previous: Settings,
  next: Settings,
  tunnelAntiDpi: TunnelAntiDpi = (s) => s.antiDpi,
  credentials: SharingCredentialsSource = NO_CREDENTIALS,
): SettingsEffects {
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
  };
}

/** What hears a settings change (each service's part of it). */
export interface SettingsTargets {
  capture: { setMode(mode: ConnectionMode): void };
  tunnel: { setPorts(ports: TunnelPorts): void } | null;
  /** Starts the core again on the same server when the VPN is up. */
  restartTunnel(): Promise<void>;
  rewriteProbes(): void;
  /** What the tunnel's core writes of the anti-DPI options (absent: all of them count). */
  tunnelAntiDpi?: TunnelAntiDpi;
  /** The household's credentials, asked for when sharing is on. */
  sharingCredentials?: SharingCredentialsSource;
  setLogLevel(level: LogLevel): void;
  monitor: { setSettings(settings: MonitorSettings): void };
  auto: { reconfigure(config: AutoConfig): void };
  reachability: { refresh(): void };
  routing: { follow(next: Settings): RoutingView | null };
  /** Tells the window (the new settings; the routing view when it changed). */
  publish: { settings(settings: Settings): void; routing(view: RoutingView): void };
  warn(line: string): void;
}

export class SettingsFanOut {
  constructor(
    private previous: Settings,
    private readonly targets: SettingsTargets,
  ) {}

  apply(next: Settings): void {
    const effects = settingsEffects(this.previous, next, this.targets.tunnelAntiDpi, this.targets.sharingCredentials);
    this.previous = next;
    const t = this.targets;
    if (effects.mode) t.capture.setMode(effects.mode);
    if (effects.ports) t.tunnel?.setPorts(effects.ports);
    if (effects.rewriteProbes) t.rewriteProbes();
    if (effects.restartTunnel) void t.restartTunnel().catch((error: unknown) => t.warn(`reconnect after the settings change failed: ${String(error)}`));
    t.setLogLevel(next.logLevel);
    t.monitor.setSettings(next.monitor);
    t.auto.reconfigure(autoConfigFrom(next));
    t.reachability.refresh();
    const routing = t.routing.follow(next);
    if (routing) t.publish.routing(routing);
    t.publish.settings(next);
  }
}
