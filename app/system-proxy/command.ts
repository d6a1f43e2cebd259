/**
 * The OS commands that read and change the system proxy are data first (a file and its arguments),
 * so each operating system's builders can be tested on any machine, and run second, through a
 * runner that never involves a shell (no quoting, no injection through a service or host name).
 */
export interface Command {
  file: string;
  args: string[];
}

export interface CommandResult {
  /** Exit code; null when the command could not be started or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export type CommandRunner = (command: Command) => Promise<CommandResult>;

export function command(file: string, ...args: string[]): Command {
  return { file, args };
}

/** For logs and errors: arguments with spaces are quoted so the line can be read back. */
export function describeCommand({ file, args }: Command): string {
  return [file, ...args].map((part) => (part === '' || /[\s'"]/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

export class CommandFailedError extends Error {
  constructor(
    readonly command: Command,
    readonly result: CommandResult,
  ) {
    const detail = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' / ');
    super(`${describeCommand(command)} failed (exit ${result.code ?? 'none'})${detail ? `: ${detail}` : ''}`);
    this.name = 'CommandFailedError';
  }
}

/** Runs a command and returns its standard output; a non-zero exit is an error naming the command. */
export async function runChecked(run: CommandRunner, cmd: Command): Promise<string> {
  const result = await run(cmd);
  if (result.code !== 0) throw new CommandFailedError(cmd, result);
  return result.stdout;
}

/** Runs commands one after the other, stopping at the first failure. */
export async function runAll(run: CommandRunner, commands: readonly Command[]): Promise<void> {
  for (const cmd of commands) await runChecked(run, cmd);
}
