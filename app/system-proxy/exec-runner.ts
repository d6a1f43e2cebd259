import { execFile } from 'node:child_process';
import type { CommandRunner } from './command';

export interface ExecRunnerOptions {
  /** The environment the commands see (tests point HOME, XDG_CONFIG_HOME and the session bus elsewhere). */
  env?: NodeJS.ProcessEnv;
  /** A command that does not finish in time is killed and reported as failed (code null). */
  timeoutMs?: number;
}

/**
 * Runs OS commands with `execFile` (no shell). A command that is missing, times out or is killed
 * resolves with `code: null` rather than throwing, so callers decide what a failure means.
 */
export function execRunner(options: ExecRunnerOptions = {}): CommandRunner {
  const timeout = options.timeoutMs ?? 15_000;
  return ({ file, args }) =>
    new Promise((resolve) => {
      execFile(
        file,
        args,
        { env: options.env ?? process.env, timeout, windowsHide: true, encoding: 'utf8', maxBuffer: 1024 * 1024 },
        (error, stdout, stderr) => {
          if (!error) return resolve({ code: 0, stdout, stderr });
          const code = typeof error.code === 'number' ? error.code : null;
          const reason = code === null ? `${error.message}\n` : '';
          resolve({ code, stdout: stdout ?? '', stderr: `${stderr ?? ''}${reason}` });
        },
      );
    });
}
