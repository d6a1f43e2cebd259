/**
 * Whether a process with this pid exists. EPERM counts as alive: the process is there, it is just
 * not ours to signal (an elevated sing-box, another user's program holding a lock file).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
