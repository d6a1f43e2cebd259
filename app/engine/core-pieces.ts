/**
 * The pieces that run cores, built the same way wherever they run: the engine builds them for the
 * app and the headless hosts, and `cli connect` (a tunnel without the monitor or Auto) builds its
 * own from these, so the two cannot drift. The core is found and understood once at start (a
 * changed core path takes a restart).
 */
import type { Problem } from '../../shared/domain/problem';
import type { ConnectionMode } from '../../shared/settings';
import { type CoreProfile, coreLabel, detectCore, locateCore, locateCores } from '../core';
import type { Logger } from '../log/logger';
import { coreCanCapture } from '../system-wide/core-privilege';
import { DEFAULT_CORE_MARK } from '../system-wide/linux/policy/capture-plan';
import { type SystemWide, systemWideFor, type SystemWideForOptions } from '../system-wide/for-platform';
import { TunnelController, type TunnelControllerOptions, type TunnelPorts } from '../tunnel/controller';

export interface CoreWanted {
  /** The path the user set (settings' `corePath`, the CLI's `--core`), or null to look for one. */
  corePath: string | null;
  /** The folder holding `core/<platform>-<arch>/` (bundled cores). */
  resourcesDir: string | undefined;
}

/**
 * The main core to run, and the cores that carry what it cannot (sing-box beside Xray or v2ray),
 * or the problem that leaves the app without a main core (nothing can connect). A carrier that
 * cannot be used is logged and left out: the main core still carries everything it can.
 */
export async function findCore(wanted: CoreWanted, logger: Logger): Promise<{ profile: CoreProfile; carriers: CoreProfile[] } | { problem: Problem }> {
  // The carriers are asked about their abilities while the main core is: each check is a config
  // test of its own, and sing-box's take seconds on a busy machine.
  const carriersFound = findCarriers(wanted, logger);
  const found = await locateCore({ settingPath: wanted.corePath, resourcesDir: wanted.resourcesDir });
  if ('error' in found) {
    await carriersFound;
    return { problem: { topic: { kind: 'no-core' }, detail: found.error } };
  }
  let profile: CoreProfile;
  try {
    profile = await detectCore(found.path);
    logger.info('ENGINE', `core: ${coreLabel(profile)} at ${found.path} (${found.source})`);
  } catch (error) {
    await carriersFound;
    const why = error instanceof Error ? error.message : String(error);
    return { problem: { topic: { kind: 'no-core' }, detail: `the core at ${found.path} could not be used: ${why}` } };
  }
  return { profile, carriers: await carriersFound };
}

/** The sing-box cores found beside the main one, each understood; one that cannot be used is logged and left out. */
async function findCarriers(wanted: CoreWanted, logger: Logger): Promise<CoreProfile[]> {
  const carriers: CoreProfile[] = [];
  for (const other of await locateCores({ resourcesDir: wanted.resourcesDir })) {
    if (other.name !== 'sing-box') continue;
    try {
      const carrier = await detectCore(other.path);
      carriers.push(carrier);
      logger.info('ENGINE', `carrier core: ${coreLabel(carrier)} at ${other.path} (${other.source})`);
    } catch (error) {
      logger.warn('ENGINE', `the core at ${other.path} is not used: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return carriers;
}

/** System-wide capture in `mode` (this platform's), with what a killed run left behind removed first. */
export async function startCapture(options: SystemWideForOptions, mode: ConnectionMode): Promise<SystemWide> {
  const capture = systemWideFor(options);
  capture.setMode(mode);
  await capture.recoverAfterCrash();
  return capture;
}

/** The tunnel's own options (`carriers`: findCore's), with its ports and the capture that follows it. */
export interface TunnelPieceOptions extends Pick<TunnelControllerOptions, 'core' | 'carriers' | 'runtimeDir' | 'logger' | 'clock' | 'routing' | 'antiDpi'> {
  ports: TunnelPorts;
  /** The capture follows the tunnel: it is put in place as the core starts and removed as it stops. */
  capture: SystemWide;
}

/** The tunnel with system-wide capture bound to it; `unbind` ends that link. */
export function captureFollowedTunnel(options: TunnelPieceOptions): { tunnel: TunnelController; unbind: () => void } {
  const { capture } = options;
  const tunnel = new TunnelController({
    core: options.core,
    carriers: options.carriers,
    runtimeDir: options.runtimeDir,
    logger: options.logger,
    clock: options.clock,
    ...options.ports,
    transparent: (server, via) => capture.transparentFor(server, via),
    routing: options.routing,
    antiDpi: options.antiDpi,
  });
  return { tunnel, unbind: capture.bind(tunnel) };
}

/**
 * The mark the probe cores put on their connections. Probes go through each server, never through
 * system-wide capture: where the core may capture, they are marked as the tunnel's own are (the
 * mark alone changes nothing where no capture runs).
 */
export async function probeOutboundMark(core: CoreProfile): Promise<number | undefined> {
  return (await coreCanCapture(core.path)) ? DEFAULT_CORE_MARK : undefined;
}
