/**
 * `npm run bench -- per-app-scan [--scans 50] [--launches 20] [--extra-processes 0]` (root): what
 * following programs by path costs under the TPROXY capture (app/system-wide/per-app/cgroup-follower.ts).
 * - one scan of /proc as the helper runs it every 200 ms: wall and CPU time, with the number of
 *   processes it read (`--extra-processes N` starts N sleeping ones first, to see it grow);
 * - from a listed program's start to its move into the list's cgroup (a copy of bash, started
 *   `--launches` times while the follower runs): what a new program's first moments are, when
 *   its connections still go the other way.
 * Its cgroup (`steadfast-vpn-cgroup-bench-…`) and every process it started are removed after.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CgroupFollower, cgroupOf } from '../../app/system-wide/per-app/cgroup-follower';
import { PerAppCgroups } from '../../app/system-wide/per-app/helper-side';
import { cgroupPlacement, perAppCgroupPaths } from '../../app/system-wide/per-app/policy/cgroup-placement';
import { execArgv } from '../../app/system-wide/linux/helper';
import { type Benchmark, median, option, quantile, round } from './harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const perAppScanBenchmark: Benchmark = {
  name: 'per-app-scan',
  description: 'per-app choice under TPROXY: the cost of one /proc scan, and a new listed program’s start to its move into the cgroup (root)',
  async run(args) {
    const scans = Math.max(1, option(args, 'scans', 50));
    const launches = Math.max(1, option(args, 'launches', 20));
    const extra = Math.max(0, option(args, 'extra-processes', 0));
    const placement = cgroupPlacement(readFileSync('/proc/self/mountinfo', 'utf8'), readFileSync('/proc/filesystems', 'utf8'));
    if (placement.kind !== 'mounted') return { error: `this benchmark needs a mounted cgroup v2 hierarchy (found: ${placement.kind})` };
    const name = `steadfast-vpn-cgroup-bench-${randomBytes(3).toString('hex')}`;
    const dir = mkdtempSync(join(tmpdir(), 'steadfast-cgroup-bench-'));
    const program = join(dir, 'cgroup-bench-probe');
    copyFileSync('/bin/bash', program);
    const { dir: leaf, v2Path } = perAppCgroupPaths(placement.mountPoint, name, 'only');
    mkdirSync(leaf, { recursive: true });
    const started: ChildProcess[] = [];
    const loadBefore = loadavg()[0] ?? 0;
    try {
      for (let i = 0; i < extra; i++) started.push(spawn('sleep', ['600'], { stdio: 'ignore' }));
      await sleep(200);
      const processes = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).length;
      const follower = new CgroupFollower({ mountPoint: placement.mountPoint, v2Path, programs: [program] });
      const wallMs: number[] = [];
      const cpuMs: number[] = [];
      for (let i = 0; i < scans; i++) {
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        await follower.scan();
        wallMs.push(performance.now() - t0);
        const used = process.cpuUsage(cpu);
        cpuMs.push((used.user + used.system) / 1000);
      }
      await follower.start();
      const moveMs: number[] = [];
      let missed = 0;
      for (let i = 0; i < launches; i++) {
        // At a random point of the scan interval: right after a move is seen would be right after a scan, every time.
        await sleep(Math.random() * 200);
        const t0 = performance.now();
        const child = spawn(program, ['-c', 'sleep 5; exit 0'], { stdio: 'ignore' });
        started.push(child);
        let moved = false;
        while (performance.now() - t0 < 3000) {
          if ((await cgroupOf(child.pid!)) === v2Path) {
            moved = true;
            break;
          }
          await sleep(2);
        }
        if (moved) moveMs.push(performance.now() - t0);
        else missed++;
        child.kill('SIGKILL');
      }
      await follower.stop();
      return {
        processes_read: processes,
        scan_wall_ms: { median: round(median(wallMs), 2), p95: round(quantile(wallMs, 0.95), 2), max: round(Math.max(...wallMs), 2) },
        scan_cpu_ms: { median: round(median(cpuMs), 2), p95: round(quantile(cpuMs, 0.95), 2) },
        scan_interval_ms: 200,
        start_to_moved_ms: { median: round(median(moveMs), 1), p95: round(quantile(moveMs, 0.95), 1), max: round(Math.max(...moveMs), 1), launches, not_moved_within_3s: missed },
        load_average_1m_before: round(loadBefore, 2),
        load_average_1m_after: round(loadavg()[0] ?? 0, 2),
      };
    } finally {
      for (const child of started) child.kill('SIGKILL');
      await sleep(100);
      await new PerAppCgroups(execArgv, undefined, name).remove();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
