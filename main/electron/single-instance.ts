import type { App } from 'electron';

/**
 * One app per user: a second launch (a double-click on the icon, a desktop shortcut, a clicked
 * "add to app" link) hands its command line over to the running one, which shows its window, and
 * exits. Two instances would fight over the local proxy ports and the system proxy settings.
 *
 * Returns false when another instance holds the lock (this one is quitting).
 */
export function claimSingleInstance(
  app: Pick<App, 'requestSingleInstanceLock' | 'quit' | 'on'>,
  showExisting: () => void,
  handOver: (argv: readonly string[]) => void = () => undefined,
): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', (_event, argv) => {
    showExisting();
    handOver(argv);
  });
  return true;
}
