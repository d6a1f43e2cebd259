/**
 * What a host sees of the engine: the options it creates one with, and the engine itself (the
 * IPC contract and the few hooks a host needs beside it).
 */
import type { Problem } from '../../shared/domain/problem';
import type { Server, ServerId } from '../../shared/domain/server';
import type { ImportRequest } from '../../shared/domain/import-request';
import type { InvokeRequest, VpnClient } from '../../shared/ipc/contract';
import type { ConnectionMode, SettingsPatch } from '../../shared/settings';
import type { AutoRuntime } from '../auto/runtime';
import type { Clock } from '../clock';
import type { Logger } from '../log/logger';
import type { SystemProxyHost } from '../system-proxy/mode';
import type { HelperMode, LaunchCommand } from '../system-wide/linux/policy/elevation';
import type { SystemWide } from '../system-wide/for-platform';
import type { KillSwitchFollower } from '../system-wide/kill-switch/follow-settings';
import type { TunnelController } from '../tunnel/controller';

export interface EngineOptions {
  /** The app's data folder (settings, subscriptions, cache, Auto's state, logs, runtime configs). */
  dataDir: string;
  /** The folder holding `core/<platform>-<arch>/` (bundled cores). */
  resourcesDir?: string;
  logger: Logger;
  clock?: Clock;
  /** The connection mode of a first start: the desktop app's is `system-proxy`, the CLI's `proxy`. */
  defaultMode?: ConnectionMode;
  /** Settings applied over the stored ones at start (the demo points test URLs at the lab). */
  settingsOverrides?: SettingsPatch;
  /** Where the throughput test downloads `bytes` from (the lab's /download in the demo). */
  throughputUrl?: (bytes: number) => string;
  /** Watch the OS's network for changes (default true). */
  watchNetwork?: boolean;
  /**
   * How this host starts the system-wide capture helper (root directly, else pkexec); without it
   * system-wide mode refuses to connect, saying why.
   */
  captureHelper?: (mode: HelperMode) => LaunchCommand;
  /** Where the kill switch keeps its record (default: dataDir); the CLI's `kill-switch off` looks there. */
  killSwitchDataDir?: string;
  /** How this host changes the OS's proxy settings; without it `system-proxy` mode leaves them alone. */
  systemProxy?: SystemProxyHost;
  /** The demo world's control, behind the contract's `labControl` (absent outside the demo). */
  labControl?: (request: InvokeRequest<'labControl'>) => Promise<void>;
}

export type Engine = VpnClient & {
  stop(): Promise<void>;
  /** A link handed over by the OS or the command line: it waits for the user's confirmation. */
  offerLink(raw: string): ImportRequest;
  /** Auto's decisions as they are made (the CLI prints them). */
  onDecision: AutoRuntime['onDecision'];
  /** Problems met at start (an unreadable file set aside, no core found): the CLI prints their detail, the window words their topic. */
  startupProblems(): readonly Problem[];
  /** System-wide mode's capture (the CLI says what it applied). */
  systemWide(): SystemWide;
  /** The kill switch, where this host runs it (the CLI says what is in force). */
  killSwitch(): KillSwitchFollower | null;
};

/** What tests and benchmarks may look at beside the engine (testing/engine-parts.ts); hosts never do. */
export interface EngineParts {
  engine: Engine;
  /** The tunnel controller itself, for its dial-failure events and timings; null without a core. */
  tunnel: TunnelController | null;
  /** A server whole, transport and security included (the window holds only its list form). */
  server(id: ServerId): Server | undefined;
}
