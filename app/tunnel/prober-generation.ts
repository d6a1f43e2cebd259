/**
 * One running prober core: every runnable server behind its own loopback HTTP inbound, and what
 * that core's log says about each server's failures. A new generation replaces this one when
 * the server set changes; this one lives on until the probes it carries are done.
 */
import type { AntiDpiOptions } from '../core/anti-dpi';
import { performance } from 'node:perf_hooks';
import type { Server, ServerId } from '../../shared/domain/server';
import { type CoreProfile, probeOutboundTag, type ProbeRelayInput, probeViaTag, proberConfig, singBoxProbeAntiDpiTag, singBoxProberConfig, writeConfigFile } from '../core';
import type { Logger } from '../log/logger';
import { coreAddress, type OutboundFailureKind } from './core-log';
import { type CoreExit, CoreProcess } from './core-process';
import { type AttributedFailure, OutboundFailureTracker } from './outbound-failures';
import { freePorts } from './ports';

export interface ProberEntryInput {
  server: Server;
  via?: Server;
  /** The server's anti-DPI options, as the tunnel would write them. */
  antiDpi?: AntiDpiOptions | null;
  /** A carried server's: the main prober core's relay that applies its anti-DPI options (sing-box). */
  antiDpiHop?: { port: number; udp: boolean } | null;
}

/** What the core said about a server's failure, when (performance.now() ms). */
export interface RecordedFailure {
  at: number;
  kind: OutboundFailureKind;
  detail: string;
  address: string | null;
  /** The failing hop was the chained server's upstream. */
  upstream: boolean;
}

const KEEP_FAILURES = 5;

export class ProberGeneration {
  readonly ports = new Map<ServerId, number>();
  /** The relays this core hosts for a carrier's prober, by carried server. */
  private readonly relayPorts = new Map<ServerId, { port: number; udp: boolean }>();
  /** Ended when this core stops: what it relies on (the main prober's core it dials through). */
  private readonly holds: (() => void)[] = [];
  private readonly byTag = new Map<string, { serverId: ServerId; upstream: boolean }>();
  private readonly byAddress = new Map<string, { serverId: ServerId; upstream: boolean }[]>();
  private readonly failures = new Map<ServerId, RecordedFailure[]>();
  private readonly waiters = new Map<ServerId, Set<(failure: RecordedFailure) => void>>();
  private inflight = 0;
  private idle: (() => void) | null = null;
  core: CoreProcess | null = null;
  file: string | null = null;

  private constructor(
    readonly id: number,
    readonly entries: readonly ProberEntryInput[],
  ) {}

  /** Writes the config and starts the core; rejects when it cannot start. */
  static async start(
    id: number,
    entries: readonly ProberEntryInput[],
    o: {
      core: CoreProfile;
      runtimeDir: string;
      logger: Logger;
      readyTimeoutMs?: number;
      /**
       * The config file's name before `-<id>.json` (default "prober"). Each owner of generations in
       * one runtime folder needs its own: ids restart at 1 per owner, a core reads its file as it
       * starts, and each owner deletes its file when it retires the core.
       */
      fileName?: string;
      /** SO_MARK on every outbound: probes leave beside system-wide capture, not through it. */
      outboundMark?: number;
      /** Anti-DPI relays for a carrier's prober (the main core's generation only). */
      relays?: readonly ProbeRelayInput[];
      onExit: (generation: ProberGeneration, exit: CoreExit) => void;
    },
  ): Promise<ProberGeneration> {
    const generation = new ProberGeneration(id, entries);
    const relayInputs = o.relays ?? [];
    const ports = await freePorts(entries.length + relayInputs.length);
    const configEntries = entries.map((entry, i) => ({ ...entry, port: ports[i] as number }));
    entries.forEach((entry, i) => generation.map(entry, i, ports[i] as number));
    const relays = relayInputs.map((relay, j) => ({ ...relay, port: ports[entries.length + j] as number }));
    for (const relay of relays) generation.relayPorts.set(relay.serverId, { port: relay.port, udp: relay.udp });
    // sing-box's prober uses the same outbound tags (probe-<i>, probe-<i>-via); its log names them in each failure.
    const config =
      o.core.family === 'sing-box'
        ? singBoxProberConfig({
            entries: configEntries.map(({ server, via, port, antiDpiHop }) => ({ server, ...(via ? { via } : {}), port, ...(antiDpiHop ? { antiDpi: antiDpiHop } : {}) })),
            core: o.core,
            listen: '127.0.0.1',
            logLevel: 'info',
            outboundMark: o.outboundMark,
          })
        : proberConfig({ entries: configEntries, relays, core: o.core, listen: '127.0.0.1', logLevel: 'info', outboundMark: o.outboundMark });
    // The access log names every destination probed; nothing here needs it (sing-box has none).
    if (o.core.family !== 'sing-box') (config.log as Record<string, unknown>).access = 'none';
    generation.file = await writeConfigFile(o.runtimeDir, `${o.fileName ?? 'prober'}-${id}`, config);
    const tracker = new OutboundFailureTracker({ failure: (f) => generation.record(f) });
    generation.core = await CoreProcess.start({
      core: o.core,
      configPath: generation.file,
      readyPort: ports[0] as number,
      readyTimeoutMs: o.readyTimeoutMs ?? 5000 + entries.length * 10,
      logger: o.logger,
      logTag: 'PROBER',
      label: `prober core (${entries.length} servers${relays.length ? `, ${relays.length} anti-DPI relays` : ''})`,
    });
    const core = generation.core;
    core.onLine((line) => tracker.line(line));
    core.onExit((exit) => o.onExit(generation, exit));
    return generation;
  }

  get running(): boolean {
    return this.core?.running ?? false;
  }

  /** The relay applying a carried server's anti-DPI options, for the carrier's prober to dial through. */
  relayHop(serverId: ServerId): { port: number; udp: boolean } | null {
    return this.relayPorts.get(serverId) ?? null;
  }

  /** `release` is called once this core has stopped. */
  holding(release: () => void): void {
    this.holds.push(release);
  }

  proxyUrl(serverId: ServerId): string | null {
    const port = this.ports.get(serverId);
    return port === undefined ? null : `http://127.0.0.1:${port}`;
  }

  /** Counts a request in flight on this generation; the returned function ends it. */
  begin(): () => void {
    this.inflight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inflight--;
      if (this.inflight === 0) this.idle?.();
    };
  }

  /** Resolves when nothing is in flight, or after `maxWaitMs`. */
  drained(maxWaitMs: number): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxWaitMs);
      this.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * The core's word on why a request to `serverId` that began at `since` failed: a failure
   * already logged, or one logged within `waitMs` (the core writes it about when it closes the
   * tunnel, sometimes a moment after).
   */
  async failureSince(serverId: ServerId, since: number, waitMs: number): Promise<RecordedFailure | null> {
    const seen = (this.failures.get(serverId) ?? []).filter((f) => f.at >= since);
    const last = seen[seen.length - 1];
    if (last) return last;
    if (waitMs <= 0) return null;
    return new Promise((resolve) => {
      let set = this.waiters.get(serverId);
      if (!set) {
        set = new Set();
        this.waiters.set(serverId, set);
      }
      const waiters = set;
      const timer = setTimeout(() => {
        waiters.delete(onFailure);
        resolve(null);
      }, waitMs);
      const onFailure = (failure: RecordedFailure) => {
        clearTimeout(timer);
        waiters.delete(onFailure);
        resolve(failure);
      };
      waiters.add(onFailure);
    });
  }

  async stop(): Promise<void> {
    try {
      await this.core?.stop();
    } finally {
      for (const release of this.holds.splice(0)) release();
    }
  }

  private map(entry: ProberEntryInput, index: number, port: number): void {
    this.ports.set(entry.server.id, port);
    this.byTag.set(probeOutboundTag(index), { serverId: entry.server.id, upstream: false });
    // sing-box may name the hop to the relay; the failure is the first hop's.
    if (entry.antiDpiHop) this.byTag.set(singBoxProbeAntiDpiTag(index), { serverId: entry.server.id, upstream: !!entry.via });
    if (entry.via) this.byTag.set(probeViaTag(index), { serverId: entry.server.id, upstream: true });
    const hops: [Server, boolean][] = [[entry.server, false], ...(entry.via ? ([[entry.via, true]] as [Server, boolean][]) : [])];
    for (const [hop, upstream] of hops) {
      for (const key of [coreAddress(hop.address, hop.port), hop.address]) {
        const list = this.byAddress.get(key) ?? [];
        list.push({ serverId: entry.server.id, upstream });
        this.byAddress.set(key, list);
      }
    }
  }

  private record(failure: AttributedFailure): void {
    // The session's route names the outbound; without it, every server at the named address.
    const owners = failure.outboundTag
      ? [this.byTag.get(failure.outboundTag)].filter((o) => o !== undefined)
      : failure.address
        ? (this.byAddress.get(failure.address) ?? [])
        : [];
    const at = performance.now();
    for (const owner of owners) {
      const recorded: RecordedFailure = { at, kind: failure.kind, detail: failure.detail, address: failure.address, upstream: owner.upstream };
      const list = this.failures.get(owner.serverId) ?? [];
      list.push(recorded);
      if (list.length > KEEP_FAILURES) list.shift();
      this.failures.set(owner.serverId, list);
      for (const waiter of [...(this.waiters.get(owner.serverId) ?? [])]) waiter(recorded);
    }
  }
}
