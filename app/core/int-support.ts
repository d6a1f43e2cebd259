/**
 * Helpers for the core adapter's integration tests (real cores on loopback): free ports, a core
 * process whose output is captured, waiting for a port to accept, and curl through a proxy.
 * Not used by the app.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accepts } from '../tunnel/ports';

// The port helpers have one copy, the app's own.
export { accepts, freePorts } from '../tunnel/ports';

export async function waitForPort(port: number, deadlineMs = 10_000): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < deadlineMs) {
    if (await accepts(port)) return performance.now() - start;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`port ${port} did not open within ${deadlineMs} ms`);
}

export interface RunningCore {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** `env` is added to this process's environment (e.g. SSL_CERT_FILE: the roots Go's TLS trusts). */
export function startCore(binary: string, args: string[], env: Record<string, string> = {}): RunningCore {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      }),
  };
}

/** HTTP status of a GET through a proxy ("http://127.0.0.1:1" or "socks5h://127.0.0.1:2"), or the curl error. */
export function curlThrough(proxy: string, url: string, timeoutS = 8): Promise<string> {
  return new Promise((resolve) => {
    execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-m', String(timeoutS), '-x', proxy, url], (error, stdout) => {
      resolve(error && !stdout ? `curl failed: ${error.message.split('\n')[0]}` : stdout.trim());
    });
  });
}
