/**
 * The system-wide capture helper's entry point (Linux, run as root by the app: directly when the
 * app is root, through pkexec otherwise). `session`: serve requests on stdin until `end` or EOF,
 * removing capture on the way out (the watchdog). `remove`: remove any capture and exit (recovery
 * at the next start after everything crashed). `kill-switch-off`: turn the kill switch off and
 * exit (`npm run cli -- kill-switch off`). Signals that would end the helper remove capture first,
 * never the kill switch.
 */
import { execArgv, removeCapture, serveHelperSession } from '../../app/system-wide/linux/helper';
import { killSwitchOff } from '../../app/system-wide/kill-switch/helper-side';

async function main(mode: string | undefined): Promise<number> {
  if (process.platform !== 'linux') {
    console.error('the capture helper runs on Linux only');
    return 2;
  }
  if (typeof process.geteuid === 'function' && process.geteuid() !== 0) {
    console.error('the capture helper must run as root (the app starts it through pkexec)');
    return 2;
  }
  if (mode === 'remove') {
    const failures = await removeCapture(execArgv);
    for (const failure of failures) console.error(failure);
    return failures.length === 0 ? 0 : 1;
  }
  if (mode === 'kill-switch-off') {
    const reply = await killSwitchOff(execArgv);
    if (!reply.ok) console.error(reply.error);
    return reply.ok ? 0 : 1;
  }
  if (mode !== 'session') {
    console.error('usage: capture-helper session|remove|kill-switch-off');
    return 2;
  }
  let ending = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (ending) return;
      ending = true;
      void removeCapture(execArgv).finally(() => process.exit(0));
    });
  }
  // The app's terminal closing must not take the helper with it before it cleans up.
  process.stdout.on('error', () => undefined);
  await serveHelperSession(process.stdin, process.stdout);
  return 0;
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    void removeCapture(execArgv).finally(() => process.exit(1));
  },
);
