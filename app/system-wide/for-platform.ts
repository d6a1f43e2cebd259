import { SystemWideCapture, type SystemWideOptions } from './system-wide';
import { TunCapture } from './tun/tun-capture';

/** What the tunnel, the monitor and the hosts use of system-wide mode, on every system. */
export type SystemWide = Pick<SystemWideCapture, 'setMode' | 'status' | 'directProxy' | 'onChange' | 'transparentFor' | 'bind' | 'recoverAfterCrash' | 'end'>;

export interface SystemWideForOptions extends SystemWideOptions {
  /** The app's runtime folder (Windows, macOS: sing-box's config, log and watchdog files). */
  runtimeDir: string;
  /** The folder holding `core/`, where the bundled sing-box is found beside the core. */
  resourcesDir?: string;
}

/**
 * Linux captures with nftables through its privileged helper; Windows and macOS put sing-box's
 * TUN device in front of the core. Any other system gets the Linux capture, which refuses the
 * mode there with the reason.
 */
export function systemWideFor(options: SystemWideForOptions): SystemWide {
  const platform = options.platform ?? process.platform;
  if (platform === 'win32' || platform === 'darwin') {
    const { dataDir, runtimeDir, logger, corePath, bypassLan, resourcesDir } = options;
    return new TunCapture({ platform, dataDir, runtimeDir, logger, corePath, bypassLan, search: { resourcesDir, platform } });
  }
  return new SystemWideCapture(options);
}
