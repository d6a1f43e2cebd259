import type { Server } from '../../shared/domain/server';
import type { SystemWideCaptureMethod } from '../../shared/settings';
import type { CoreCapture } from '../core/transparent';
import { ChosenCapture } from './chosen-capture';
import { SystemWideCapture, type SystemWideOptions } from './system-wide';
import { TunCapture } from './tun/tun-capture';

/**
 * What the tunnel, the monitor and the hosts use of system-wide mode, on every system; before each
 * core start it says what the core takes part in (TPROXY's inbounds and mark, the TUN's mark alone).
 */
export type SystemWide = Pick<SystemWideCapture, 'setMode' | 'status' | 'directProxy' | 'onChange' | 'ipv6Outdated' | 'bind' | 'recoverAfterCrash' | 'end'> & {
  transparentFor(server?: Server, via?: Server): Promise<CoreCapture | null>;
};

export interface SystemWideForOptions extends SystemWideOptions {
  /** The app's runtime folder (Windows, macOS: sing-box's config, log and watchdog files). */
  runtimeDir: string;
  /** The folder holding `core/`, where the bundled sing-box is found beside the core. */
  resourcesDir?: string;
  /** Linux: the capture the settings choose (default nftables TPROXY). */
  linuxCapture?: () => SystemWideCaptureMethod;
  /** The settings' remote resolver: sing-box's TUN answers captured DNS through the core with it. */
  remoteDns?: () => string;
}

/**
 * Windows and macOS put sing-box's TUN device in front of the core. Linux captures with nftables
 * through its privileged helper, or with the same sing-box TUN when the settings choose it. Any
 * other system gets the nftables capture, which refuses the mode there with the reason.
 */
export function systemWideFor(options: SystemWideForOptions): SystemWide {
  const platform = options.platform ?? process.platform;
  const { dataDir, runtimeDir, logger, corePath, bypassLan, perApp, resourcesDir, remoteDns, serverIpv6 } = options;
  // The TUN capture decides IPv6 by the monitor's finding too, as the nftables one does.
  const tun = (tunPlatform: 'win32' | 'darwin' | 'linux') =>
    new TunCapture({ platform: tunPlatform, dataDir, runtimeDir, logger, corePath, bypassLan, perApp, remoteDns, serverIpv6, search: { resourcesDir, platform: tunPlatform } });
  if (platform === 'win32' || platform === 'darwin') return tun(platform);
  if (platform === 'linux') return new ChosenCapture({ tproxy: new SystemWideCapture(options), tun: tun('linux') }, options.linuxCapture ?? (() => 'tproxy'), dataDir);
  return new SystemWideCapture(options);
}
