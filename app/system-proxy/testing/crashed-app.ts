import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * The crash the system-proxy tests recover from: the app stand-in (apply-and-wait.ts) sets the
 * system proxy in the session `env`, says what it applied, and is killed with SIGKILL before it
 * could restore anything. Resolves with what it said it applied, once it is gone.
 */
export async function applyThenCrash(env: NodeJS.ProcessEnv, statePath: string, httpPort: number): Promise<{ applied: string[]; failed: unknown[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'apply-and-wait.ts'), statePath, String(httpPort)], {
    env,
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += String(c)));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (c) => resolve(String(c)));
    child.once('exit', (code) => reject(new Error(`the app stand-in exited (${code}) before setting the proxy: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(line) as { applied: string[]; failed: unknown[] };
}
