import { BrowserWindow, type Session, shell, type WebContents } from 'electron';
import type { Logger } from '../../app/log/logger';
import {
  contentSecurityPolicy,
  describeOrigin,
  isAllowedRequest,
  isSafeExternalUrl,
  isTrustedRendererUrl,
  type RendererSource,
  SECURE_WEB_PREFERENCES,
} from './security';

export interface MainWindowOptions {
  source: RendererSource;
  /** The bundled preload (dist/main/preload.cjs). */
  preloadPath: string;
  iconPath?: string;
  /** Developer tools: on in development, off in packaged builds. */
  devTools: boolean;
  logger: Logger;
}

/** The app window: locked-down options (see security.ts), hardened contents, the UI loaded from disk. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1180,
    height: 780,
    minWidth: 760,
    minHeight: 520,
    show: false,
    title: 'Steadfast VPN',
    ...(options.iconPath ? { icon: options.iconPath } : {}),
    autoHideMenuBar: true,
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: options.preloadPath, devTools: options.devTools },
  });
  hardenWebContents(window.webContents, options.source, options.logger);
  window.once('ready-to-show', () => window.show());
  const loaded = options.source.kind === 'file' ? window.loadFile(options.source.indexPath) : window.loadURL(options.source.url);
  loaded.catch((error: unknown) => options.logger.error('WINDOW', `could not load the interface: ${error instanceof Error ? error.message : String(error)}`));
  return window;
}

/**
 * Keeps the page where it is: no navigation or redirect away from the app's own page, no new
 * windows (an http(s) link the page tries to open goes to the user's browser instead), no
 * webviews.
 */
export function hardenWebContents(
  contents: WebContents,
  source: RendererSource,
  logger: Logger,
  openExternal: (url: string) => Promise<void> = (url) => shell.openExternal(url),
): void {
  const refuseNavigation = (kind: string) => (event: { preventDefault(): void }, url: string) => {
    if (isTrustedRendererUrl(url, source)) return;
    event.preventDefault();
    logger.warn('WINDOW', `blocked ${kind} to ${describeOrigin(url)}`);
  };
  contents.on('will-navigate', refuseNavigation('navigation'));
  contents.on('will-redirect', refuseNavigation('redirect'));
  contents.on('will-frame-navigate', (details) => {
    if (isTrustedRendererUrl(details.url, source)) return;
    details.preventDefault();
    logger.warn('WINDOW', `blocked frame navigation to ${describeOrigin(details.url)}`);
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) {
      openExternal(url).catch((error: unknown) => logger.warn('WINDOW', `could not open a link in the browser: ${String(error)}`));
    } else {
      logger.warn('WINDOW', `blocked a new window for ${describeOrigin(url)}`);
    }
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    logger.warn('WINDOW', 'blocked a webview');
  });
}

/**
 * Session-wide rules: every permission request and check is refused (the UI needs none), every
 * response carries the CSP (the page's own meta tag says the same for file://), and requests for
 * anything but the app's own files (or the loopback dev server) are cancelled before they leave.
 */
export function installSessionPolicies(session: Session, source: RendererSource, logger: Logger): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => {
    logger.warn('WINDOW', `refused a permission request: ${permission}`);
    callback(false);
  });
  session.setPermissionCheckHandler(() => false);
  const csp = contentSecurityPolicy(source);
  session.webRequest.onHeadersReceived((details, callback) => {
    const responseHeaders = Object.fromEntries(
      Object.entries(details.responseHeaders ?? {}).filter(([name]) => name.toLowerCase() !== 'content-security-policy'),
    );
    callback({ responseHeaders: { ...responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  session.webRequest.onBeforeRequest((details, callback) => {
    if (isAllowedRequest(details.url, source)) return callback({});
    logger.warn('WINDOW', `blocked a request for ${describeOrigin(details.url)}`);
    callback({ cancel: true });
  });
}
