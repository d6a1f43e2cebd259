/**
 * `spawnLab`: the lab as a child process (`e2e/lab/main.ts` under tsx), driven over its HTTP
 * control API. The child runs supervised, so it cannot outlive the process that spawned it.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSupervised } from '../../app/process/supervised';
import type { IpInfoMode, IpInfoService, Lab, LabCounters, LabInfo, SubscriptionChange } from './types';

const LAB_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = join(LAB_DIR, '..', '..');

async function call(control: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${control}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const parsed = (await res.json()) as { error?: string };
  if (!res.ok) throw new Error(`lab control ${method} ${path}: ${res.status} ${parsed.error ?? ''}`.trim());
  return parsed;
}

export async function spawnLab(args: string[] = [], startTimeoutMs = 30_000): Promise<Lab & { pid: number }> {
  const child = spawnSupervised(process.execPath, ['--import', 'tsx', join(LAB_DIR, 'main.ts'), ...args], { cwd: REPO_ROOT });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`lab printed no JSON line within ${startTimeoutMs} ms: ${stderr.trim()}`)), startTimeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        cleanup();
        resolve(buffered.slice(0, newline));
      }
    };
    const onExit = (code: number | null) => fail(new Error(`lab exited (${code}) before printing its JSON line: ${stderr.trim()}`));
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.stdout?.resume();
    }
    function fail(error: Error) {
      cleanup();
      child.kill('SIGKILL');
      reject(error);
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
  const { pid, ...info } = JSON.parse(line) as LabInfo & { pid: number };
  const control = info.control;
  let stopping: Promise<void> | null = null;
  return {
    info,
    pid,
    setFault: async (id, f) => void (await call(control, 'POST', `/servers/${encodeURIComponent(id)}`, f)),
    setNetwork: async (state) => void (await call(control, 'POST', '/network', { state })),
    setSubscription: async (id, change: SubscriptionChange) => void (await call(control, 'POST', `/subscriptions/${encodeURIComponent(id)}`, change)),
    setIpInfo: async (service: IpInfoService, mode: IpInfoMode) => void (await call(control, 'POST', `/ipinfo/${encodeURIComponent(service)}`, { mode })),
    counters: async () => (await call(control, 'GET', '/counters')) as LabCounters,
    state: async () => call(control, 'GET', '/state'),
    // SIGTERM to the lab itself (not its guard); the guard exits once the lab has cleaned up.
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            child.kill('SIGTERM');
          }
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        }
      })()),
  };
}
