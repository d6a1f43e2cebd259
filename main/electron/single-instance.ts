import type { App } from 'electron';

/**
 * One app per user: a second launch (a double-click on the icon, a desktop shortcut) hands over to
 * the running one, which shows its window, and exits. Two instances would fight over the local
 * proxy ports and the system proxy settings.
 *
 * Returns false when another instance holds the lock (this one is quitting).
 */
export function claimSingleInstance(app: Pick<App, 'requestSingleInstanceLock' | 'quit' | 'on'>, showExisting: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => showExisting());
  return true;
}
