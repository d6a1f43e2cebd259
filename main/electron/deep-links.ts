import { resolve } from 'node:path';
import type { App } from 'electron';
import { DEEP_LINK_SCHEMES, isDeepLink } from '../../app/imports/deep-link';
import type { Logger } from '../../app/log/logger';

export interface LinkIntakeOptions {
  /** This process's command line: a link that launched the app is in it (Windows, Linux). */
  argv: readonly string[];
  /** Run as `electron .` (development): the OS must be told to start Electron with the app's path. */
  defaultApp: boolean;
  execPath: string;
  logger: Logger;
}

/**
 * Where "add to app" links come in. The app registers for the panels' schemes with the OS (and
 * electron-builder declares them in the installers); the OS hands a clicked link over on the
 * command line of a new process (Windows, Linux: the single-instance lock passes it to the running
 * one) or as `open-url` (macOS). Links that arrive before the engine runs wait for it.
 */
export class LinkIntake {
  private pending: string[] = [];
  private deliver: ((link: string) => void) | null = null;

  constructor(
    app: Pick<App, 'on' | 'setAsDefaultProtocolClient'>,
    private readonly options: LinkIntakeOptions,
  ) {
    const refused: string[] = [];
    for (const scheme of DEEP_LINK_SCHEMES) {
      // In development the OS would start bare Electron: give it the app's entry too.
      const entry = options.defaultApp ? options.argv[1] : undefined;
      const registered = entry ? app.setAsDefaultProtocolClient(scheme, options.execPath, [resolve(entry)]) : app.setAsDefaultProtocolClient(scheme);
      if (!registered) refused.push(scheme);
    }
    if (refused.length > 0) options.logger.warn('LINKS', `the OS did not register this app for ${refused.map((s) => `${s}://`).join(', ')} links`);
    // macOS delivers links as an event, possibly before the app is ready.
    app.on('open-url', (event, url) => {
      event.preventDefault();
      this.take(url);
    });
    this.fromArgv(options.argv);
  }

  /** A command line (this process's, or a second instance's handed over): the links in it. */
  fromArgv(argv: readonly string[]): void {
    for (const arg of argv) if (isDeepLink(arg)) this.take(arg);
  }

  /** From now on links go to `deliver` (the engine); those that waited go first. */
  connect(deliver: (link: string) => void): void {
    this.deliver = deliver;
    for (const link of this.pending.splice(0)) deliver(link);
  }

  private take(link: string): void {
    if (!isDeepLink(link)) return void this.options.logger.warn('LINKS', 'ignored a link of a scheme this app does not handle');
    if (this.deliver) this.deliver(link);
    else this.pending.push(link);
  }
}
