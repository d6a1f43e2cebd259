/**
 * Soak: the app for 20–30 minutes against a lab with flapping servers and blackhole toggles, a
 * user's steady traffic through the local proxy and a UI client connected to the headless host.
 * The app runs in a child process (e2e/reliability/soak-worker.ts) so its RSS, heap, descriptors
 * and handles are its own; the lab runs here. Every `--sample-seconds` (30) the series gets: RSS,
 * heap used after a forced GC, open descriptors (all, sockets), libuv handles by kind, child
 * processes and cores, Auto's switches and checks, and the probes spent (the lab's counters).
 * The growth of each figure after warm-up (the first 5 min, or a fifth of a shorter run): see
 * `growth` below.
 *
 *   npm run bench -- soak [--minutes 25] [--sample-seconds 30] [--seed 7]
 *   npm run bench -- soak --minutes 2          # a quick run
 *   sudo npm run bench -- soak --mode system-wide --kill-switch [--minutes 20]   # soak-system-wide.ts
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreProcesses } from '../reliability/inventory';
import type { WorkerConfig, WorkerSample } from '../reliability/soak-worker';
import { type InProcessLab, startLab } from '../lab';
import type { LabCounters } from '../lab';
import { type Benchmark, growth, option, round } from './harness';
import { systemWideSoak } from './soak-system-wide';

const WORKER = fileURLToPath(new URL('../reliability/soak-worker.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MIB = 1024 * 1024;

/** Servers that flap for the whole run, with their periods (one per subscription, and a fast one). */
const FLAPPING: { id: string; periodMs: number }[] = [
  { id: 'A3', periodMs: 20_000 },
  { id: 'A4', periodMs: 7_000 },
  { id: 'B2', periodMs: 45_000 },
  { id: 'C1', periodMs: 90_000 },
];
/** Every 4 min the server carrying the traffic is blackholed for 60 s, so Auto must move. */
const TOGGLE_EVERY_MS = 4 * 60_000;
const TOGGLE_FOR_MS = 60_000;
/** And a neighbour-subscription server is blackholed for 2 min of every 6. */
const SIDE_TOGGLE = { id: 'B1', everyMs: 6 * 60_000, forMs: 2 * 60_000 };

interface Row {
  t_s: number;
  rss_mib: number;
  heap_used_mib: number;
  heap_total_mib: number;
  external_mib: number;
  fds: number;
  socket_fds: number;
  handles: number;
  handles_by_kind: Record<string, number>;
  child_processes: number;
  cores: Record<string, number>;
  core_listeners: number;
  switches: number;
  checks: number;
  network_lost: number;
  url_tests_reaching_target: number;
  ipinfo_requests: number;
  relay_connections: number;
  traffic_answered: number;
  traffic_failed: number;
  ui_events: number;
  current: string | null;
}

class Worker {
  private readonly waiters: { type: string; resolve: (m: Record<string, unknown>) => void }[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.on('message', (message: Record<string, unknown>) => {
      const i = this.waiters.findIndex((w) => w.type === message.type || message.type === 'error');
      if (i >= 0) this.waiters.splice(i, 1)[0]?.resolve(message);
    });
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-16_000)));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  next(type: string, timeoutMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the soak worker sent no "${type}" within ${timeoutMs} ms: ${this.stderr.slice(-2000)}`)), timeoutMs);
      void this.exited.then((code) => reject(new Error(`the soak worker exited (${code}): ${this.stderr.slice(-2000)}`)));
      this.waiters.push({
        type,
        resolve: (m) => {
          clearTimeout(timer);
          if (m.type === 'error') reject(new Error(String(m.error)));
          else resolve(m);
        },
      });
    });
  }

  async sample(): Promise<WorkerSample> {
    const reply = this.next('sample', 30_000);
    this.child.send({ type: 'sample' });
    return (await reply).sample as WorkerSample;
  }

  async stop(): Promise<{ childProcessesAtStop: number | null; commandsAtStop: string[]; exitCode: number | null }> {
    if (this.child.exitCode !== null) return { childProcessesAtStop: null, commandsAtStop: [], exitCode: this.child.exitCode };
    const reply = this.next('stopped', 30_000).catch(() => null);
    this.child.send({ type: 'stop' });
    const stopped = await reply;
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const exitCode = await this.exited;
    clearTimeout(killer);
    return {
      childProcessesAtStop: stopped ? Number(stopped.childProcesses) : null,
      commandsAtStop: stopped ? (stopped.commands as string[]) : [],
      exitCode,
    };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function total(counters: LabCounters) {
  const servers = Object.values(counters.servers);
  return {
    urlTests: counters.target.generate204,
    ipinfo: Object.values(counters.ipinfo).reduce((a, b) => a + b, 0),
    relayConnections: servers.reduce((a, s) => a + s.connections, 0),
  };
}

export const soakBenchmark: Benchmark = {
  name: 'soak',
  description: 'the app for --minutes (25) with flapping servers and steady traffic: RSS, heap, handles, processes, switches, probes over time; --mode system-wide [--kill-switch] in network namespaces (root): leaked packets, RSS growth, rules left after stop',
  async run(args) {
    if (option(args, 'mode', 'proxy') === 'system-wide') return systemWideSoak(args);
    const minutes = option(args, 'minutes', 25);
    const sampleMs = option(args, 'sample-seconds', 30) * 1000;
    const seed = option(args, 'seed', 7);
    const durationMs = minutes * 60_000;
    const warmupMs = Math.min(5 * 60_000, durationMs / 5);
    const lab: InProcessLab = await startLab({ servers: 12, subscriptions: 3, seed, latency: [20, 150] });
    const dataDir = await mkdtemp(join(tmpdir(), 'steadfast-soak-'));
    const config: WorkerConfig = {
      dataDir,
      subscriptions: lab.info.subscriptions.map((s) => s.url),
      target: lab.info.target,
      ipinfoUrls: lab.info.ipinfoUrls,
      resolver: lab.info.resolver,
      download: lab.info.download,
      bytes: lab.info.bytes,
      intervalMs: 60_000,
    };
    const child = fork(WORKER, [JSON.stringify(config)], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', '--expose-gc'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const worker = new Worker(child);
    const rows: Row[] = [];
    const faults: string[] = [];
    let stopResult: Awaited<ReturnType<Worker['stop']>> | null = null;
    let last: WorkerSample | null = null;
    try {
      const ready = await worker.next('ready', 120_000);
      const labIdOf = (current: WorkerSample['current']) =>
        current ? (lab.info.servers.find((s) => s.relay === `${current.address}:${current.port}`)?.id ?? null) : null;
      for (const f of FLAPPING) {
        await lab.setFault(f.id, { fault: 'flap', periodMs: f.periodMs });
        faults.push(`${f.id} flap every ${f.periodMs / 1000} s for the whole run`);
      }
      faults.push(`the server carrying traffic blackholed for ${TOGGLE_FOR_MS / 1000} s every ${TOGGLE_EVERY_MS / 60_000} min`);
      faults.push(`${SIDE_TOGGLE.id} blackholed for ${SIDE_TOGGLE.forMs / 60_000} min every ${SIDE_TOGGLE.everyMs / 60_000} min`);

      const started = Date.now();
      let nextSampleAt = started;
      let toggled: string | null = null;
      let toggledAt = 0;
      let sideOn = false;
      const toggleLog: { t_s: number; server: string; fault: string }[] = [];
      while (Date.now() - started <= durationMs) {
        const elapsed = Date.now() - started;
        if (Date.now() >= nextSampleAt) {
          last = await worker.sample();
          const counters = total(await lab.counters());
          const handles = Object.values(last.resources).reduce((a, b) => a + b, 0);
          rows.push({
            t_s: Math.round(elapsed / 1000),
            rss_mib: round(last.rssBytes / MIB, 1),
            heap_used_mib: round(last.heapUsedBytes / MIB, 1),
            heap_total_mib: round(last.heapTotalBytes / MIB, 1),
            external_mib: round(last.externalBytes / MIB, 1),
            fds: last.fds,
            socket_fds: last.socketFds,
            handles,
            handles_by_kind: last.resources,
            child_processes: last.childProcesses,
            cores: last.cores,
            core_listeners: last.coreListeners,
            switches: last.switches,
            checks: last.checks,
            network_lost: last.networkLost,
            url_tests_reaching_target: counters.urlTests,
            ipinfo_requests: counters.ipinfo,
            relay_connections: counters.relayConnections,
            traffic_answered: last.trafficAnswered,
            traffic_failed: last.trafficFailed,
            ui_events: last.wsEvents,
            current: labIdOf(last.current),
          });
          nextSampleAt += sampleMs;
        }
        // Blackhole the server carrying the traffic for a minute, every few minutes.
        const phase = elapsed % TOGGLE_EVERY_MS;
        if (toggled === null && phase >= TOGGLE_EVERY_MS - TOGGLE_FOR_MS - 1000 && elapsed > 30_000) {
          const current = labIdOf(last?.current ?? null);
          if (current && !FLAPPING.some((f) => f.id === current)) {
            await lab.setFault(current, { fault: 'blackhole' });
            toggled = current;
            toggledAt = Date.now();
            toggleLog.push({ t_s: Math.round(elapsed / 1000), server: current, fault: 'blackhole' });
          }
        } else if (toggled !== null && Date.now() - toggledAt >= TOGGLE_FOR_MS) {
          await lab.setFault(toggled, { fault: 'none' });
          toggleLog.push({ t_s: Math.round(elapsed / 1000), server: toggled, fault: 'none' });
          toggled = null;
        }
        const sidePhase = elapsed % SIDE_TOGGLE.everyMs;
        const sideWanted = sidePhase >= SIDE_TOGGLE.everyMs - SIDE_TOGGLE.forMs;
        if (sideWanted !== sideOn && toggled !== SIDE_TOGGLE.id) {
          await lab.setFault(SIDE_TOGGLE.id, { fault: sideWanted ? 'blackhole' : 'none' });
          toggleLog.push({ t_s: Math.round(elapsed / 1000), server: SIDE_TOGGLE.id, fault: sideWanted ? 'blackhole' : 'none' });
          sideOn = sideWanted;
        }
        await sleep(1000);
      }

      stopResult = await worker.stop();
      await sleep(500);
      const leftover = coreProcesses(join(dataDir, 'runtime'));
      const warmupS = Math.round(warmupMs / 1000);
      const first = rows[0];
      const final = rows.at(-1);
      const spanMin = first && final ? (final.t_s - first.t_s) / 60 : 0;
      const metrics: Record<string, (r: Row) => number> = {
        rss_mib: (r) => r.rss_mib,
        heap_used_mib: (r) => r.heap_used_mib,
        fds: (r) => r.fds,
        socket_fds: (r) => r.socket_fds,
        handles: (r) => r.handles,
        child_processes: (r) => r.child_processes,
        core_listeners: (r) => r.core_listeners,
      };
      const growthAfterWarmup = Object.fromEntries(Object.entries(metrics).map(([name, pick]) => [name, growth(rows, warmupS, pick)]));
      const over = Object.entries(growthAfterWarmup)
        .filter(([, g]) => g.floor_growth_pct !== null && g.floor_growth_pct > 10 && g.growth_pct !== null && g.growth_pct > 10)
        .map(([name]) => name);
      return {
        minutes,
        sample_interval_s: sampleMs / 1000,
        warmup_s: warmupS,
        app_process: 'child process (engine + headless host + one UI WebSocket client + the traffic generator); the lab runs in the bench process',
        worker_pid: ready.pid,
        lab: { servers: lab.info.servers.length, subscriptions: lab.info.subscriptions.length, seed, latency_ms: [20, 150], faults, toggles: toggleLog },
        growth_after_warmup: growthAfterWarmup,
        /** Figures whose median and floor both grew more than 10% after warm-up (the target: none). */
        over_10_pct: over,
        totals: final
          ? {
              switches: final.switches,
              checks: final.checks,
              network_lost: final.network_lost,
              rate_limited: last?.rateLimited ?? null,
              url_tests_reaching_target: final.url_tests_reaching_target,
              url_tests_per_min: spanMin > 0 ? round((final.url_tests_reaching_target - (first?.url_tests_reaching_target ?? 0)) / spanMin, 1) : null,
              ipinfo_requests: final.ipinfo_requests,
              relay_connections: final.relay_connections,
              traffic_answered: final.traffic_answered,
              traffic_failed: final.traffic_failed,
              ui_events: final.ui_events,
              unhandled_rejections: last?.unhandledRejections ?? null,
              error_lines: last?.errorLines ?? null,
            }
          : null,
        stop: {
          worker_exit_code: stopResult.exitCode,
          child_processes_after_engine_stop: stopResult.childProcessesAtStop,
          still_running_after_engine_stop: stopResult.commandsAtStop,
          cores_left_after_exit: leftover.cores.length,
          guards_left_after_exit: leftover.guards.length,
        },
        worker_stderr_tail: worker.stderr.trim().split('\n').slice(-10),
        samples: rows,
      };
    } finally {
      if (!stopResult) await worker.stop().catch(() => child.kill('SIGKILL'));
      await lab.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
