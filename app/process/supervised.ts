import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';

/**
 * Starts a child that cannot outlive us. Node has no portable "kill my children when I die", and a
 * SIGKILLed app cannot clean up, so on POSIX the child runs under a tiny `sh` guard that holds a
 * pipe to us on stdin: when we die, for any reason, the pipe closes, `read` returns and the guard
 * kills the child. The guard also exits (with the child's status) when the child exits by itself.
 * On Windows the child is started directly; the app's exit handlers stop it there.
 */
export function spawnSupervised(command: string, args: readonly string[], options: Omit<SpawnOptions, 'stdio'> = {}): ChildProcess {
  if (process.platform === 'win32') {
    return spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  }
  // $0 is the command, "$@" its arguments. The child's stdin is /dev/null so only the guard reads our pipe.
  // Background jobs of a non-interactive sh get /dev/null as stdin, so our pipe is kept on fd 3.
  const guard = [
    'exec 3<&0',
    '"$0" "$@" </dev/null 3<&- &',
    'child=$!',
    // Parent gone (EOF on stdin) -> stop the child. Child gone -> stop the watcher.
    '( read -r _ignored <&3; kill -TERM "$child" 2>/dev/null; sleep 2; kill -KILL "$child" 2>/dev/null ) &',
    'watcher=$!',
    'exec 3<&-',
    'trap \'kill -TERM "$child" 2>/dev/null\' TERM INT',
    'wait "$child"; status=$?',
    // A trapped TERM interrupts `wait` while the child is still exiting: wait again so the guard
    // reaps the child (and the watcher) itself; an orphan left to an init that does not reap
    // (some containers) would stay a zombie, and its ports could still be bound when we return.
    'while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done',
    'kill "$watcher" 2>/dev/null',
    'wait "$watcher" 2>/dev/null',
    'exit "$status"',
  ].join('\n');
  return spawn('/bin/sh', ['-c', guard, command, ...args], { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Stops a supervised child: TERM, then KILL after `graceMs`; resolves once it has exited. */
export function stopSupervised(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
