import { homedir } from 'node:os';
import { join } from 'node:path';
import { app, type BrowserWindow, desktopCapturer, dialog, Menu, screen, session } from 'electron';
import type { Logger } from '../../app/log/logger';
import type { Engine, EngineOptions } from '../../app/engine';
import type { SystemProxyHost } from '../../app/system-proxy/mode';
import { EVENT_NAMES, parseRequest } from '../../shared/ipc/contract';
import type { CreateEngine } from './engine-loader';
import { forwardEngineEvents } from './ipc/events';
import { registerInvokeHandlers } from './ipc/handlers';
import { senderRefusal } from './ipc/sender';
import { resolveRendererSource } from './security';
import { LinkIntake, type LinkIntakeOptions } from './deep-links';
import { followStartupSettings, startedHidden } from './login-item';
import { captureScreens } from './screen-capture';
import { claimSingleInstance } from './single-instance';
import { DesktopTray } from './tray';
import { loadTrayFlags } from './tray-flags';
import type { TrayAction } from './tray-menu';
import { TRAY_REQUESTS, type TrayRequest } from './tray-text';
import { createMainWindow, installSessionPolicies } from './window';

export interface DesktopAppOptions {
  /** Loads the engine's composition root (a dynamic import, so the shell starts fast). */
  loadEngine: () => Promise<CreateEngine>;
  dataDir: string;
  resourcesDir: string;
  /** dist/renderer */
  rendererDir: string;
  /** dist/main/preload.cjs */
  preloadPath: string;
  /** Tray and window icons. */
  assetsDir: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  logger: Logger;
  /** How the engine reads and changes the OS's proxy settings (system-proxy mode). */
  systemProxy: SystemProxyHost;
  /** How system-wide mode's privileged helper is started (absent: the mode says it is unavailable). */
  captureHelper?: EngineOptions['captureHelper'];
  /** Quitting never hangs longer than this, whatever the engine or the OS commands do. */
  quitTimeoutMs?: number;
  /** Ctrl+C or a TERM (e.g. from `npm start` in a terminal) quits cleanly, restoring the proxy. Default on. */
  handleSignals?: boolean;
  /** How this process was started: its command line may carry a link; see LinkIntakeOptions. */
  launch?: Omit<LinkIntakeOptions, 'logger'>;
}

export interface DesktopApp {
  /** Settles once the window is up (or start-up failed and the app is quitting). */
  ready: Promise<void>;
  window(): BrowserWindow | null;
  engine(): Engine | null;
}

/**
 * The desktop app's life: one instance; on start the engine (which puts back the system proxy a
 * crashed run left behind, and runs system-proxy mode), the window, IPC and the tray come up;
 * closing the window keeps the VPN running in the tray; quitting stops the engine (which restores
 * the system proxy first), bounded by a timeout, before the process exits.
 */
export function startDesktopApp(options: DesktopAppOptions): DesktopApp | null {
  const { logger } = options;
  let window: BrowserWindow | null = null;
  let engine: Engine | null = null;
  let tray: DesktopTray | null = null;
  let started = false;
  let quitting = false;
  let shutdown: Promise<void> | null = null;
  let shutdownDone = false;
  const disposers: (() => void)[] = [];

  const liveWindow = () => (window && !window.isDestroyed() ? window : null);

  const showWindow = () => {
    if (!started) return;
    const existing = liveWindow();
    if (!existing) {
      window = openWindow();
      return;
    }
    if (existing.isMinimized()) existing.restore();
    existing.show();
    existing.focus();
  };

  let links: LinkIntake | null = null;
  if (!claimSingleInstance(app, showWindow, (argv) => links?.fromArgv(argv))) return null;
  links = new LinkIntake(app, { ...(options.launch ?? { argv: [], defaultApp: false, execPath: '' }), logger });

  const { source, warning } = resolveRendererSource(options.rendererDir, options.env);
  if (warning) logger.warn('WINDOW', warning);

  function openWindow(): BrowserWindow {
    const created = createMainWindow({
      source,
      preloadPath: options.preloadPath,
      iconPath: options.platform === 'linux' ? join(options.assetsDir, 'icon.png') : undefined,
      devTools: !app.isPackaged,
      logger,
    });
    created.on('close', (event) => {
      // With a tray, closing the window keeps the VPN running; "Quit" in the tray ends it.
      if (!quitting && tray) {
        event.preventDefault();
        created.hide();
      }
    });
    return created;
  }

  // Any other web contents (there should be none) gets no windows and no webviews either.
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app.on('window-all-closed', () => {
    if (!tray) app.quit();
  });
  app.on('activate', showWindow);
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    if (shutdownDone) return;
    event.preventDefault();
    shutdown ??= shutDown().finally(() => {
      shutdownDone = true;
      app.quit();
    });
  });
  if (options.handleSignals !== false) for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => app.quit());

  async function dispatch(action: TrayAction): Promise<void> {
    switch (action.type) {
      case 'show-window':
        return showWindow();
      case 'quit':
        return app.quit();
      case 'connect':
        await engine?.connect(parseRequest('connect', {}));
        return;
      case 'disconnect':
        await engine?.disconnect(parseRequest('disconnect', {}));
        return;
      case 'set-auto':
        await engine?.setAuto(parseRequest('setAuto', { subscriptionId: action.subscriptionId }));
        return;
      case 'set-kill-switch':
        await engine?.setSettings(parseRequest('setSettings', { killSwitch: action.on }));
        return;
      case 'connect-server':
        await engine?.connect(parseRequest('connect', { serverId: action.serverId }));
        return;
      case 'test-server':
        await engine?.testServer(parseRequest('testServer', { serverId: action.serverId }));
        return;
      case 'set-excluded':
        await engine?.setExcluded(parseRequest('setExcluded', { subscriptionId: action.subscriptionId, serverIds: action.serverIds }));
        return;
    }
  }

  async function start(): Promise<void> {
    Menu.setApplicationMenu(
      options.platform === 'darwin' ? Menu.buildFromTemplate([{ role: 'appMenu' }, { role: 'editMenu' }, { role: 'windowMenu' }]) : null,
    );
    installSessionPolicies(session.defaultSession, source, logger);

    const createEngine = await options.loadEngine();
    // A newcomer's Connect should change what their browser does: the desktop app starts in system-proxy mode.
    const running = await createEngine({
      dataDir: options.dataDir,
      resourcesDir: options.resourcesDir,
      logger,
      defaultMode: 'system-proxy',
      systemProxy: options.systemProxy,
      ...(options.captureHelper ? { captureHelper: options.captureHelper } : {}),
    });
    engine = running;

    disposers.push(
      registerInvokeHandlers({
        // The screen is the desktop shell's to capture; everything else is the engine's.
        service: { ...running, captureScreen: () => captureScreens(desktopCapturer, screen) },
        checkSender: (event) => senderRefusal(event, liveWindow()?.webContents ?? null, source),
        logger,
      }),
      forwardEngineEvents(running, () => liveWindow()?.webContents ?? null),
    );

    try {
      tray = new DesktopTray({
        iconPath: (connected) =>
          join(options.assetsDir, options.platform === 'darwin' ? 'trayTemplate.png' : connected ? 'tray-connected.png' : 'tray-disconnected.png'),
        systemLocale: app.getLocale(),
        flagPath: loadTrayFlags(join(options.assetsDir, 'flags')),
        dispatch: (action) => {
          dispatch(action).catch((error: unknown) => {
            logger.warn('TRAY', `${action.type} failed: ${error instanceof Error ? error.message : String(error)}`);
            if ((TRAY_REQUESTS as readonly string[]).includes(action.type)) tray?.tellRefusal(action.type as TrayRequest, error);
          });
        },
        onClick: showWindow,
      });
    } catch (error) {
      // Some Linux desktops have no tray: the app then quits when its window closes.
      logger.warn('TRAY', `no tray icon on this desktop: ${String(error)}`);
    }
    for (const name of EVENT_NAMES) disposers.push(running.on(name, (payload) => tray?.onEvent(name, payload)));

    const snapshot = await running.getSnapshot({});
    tray?.onEvent('snapshot', snapshot);

    const launch = options.launch ?? { argv: [], defaultApp: false, execPath: process.execPath };
    disposers.push(
      followStartupSettings(
        app,
        running,
        { startAtLogin: snapshot.settings.startAtLogin, connectOnStart: snapshot.settings.connectOnStart, connected: snapshot.connection.state !== 'disconnected' },
        {
          platform: options.platform,
          executable: options.env.APPIMAGE ?? launch.execPath,
          configHome: options.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'),
          logger,
        },
      ),
    );

    started = true;
    // Started at login: the app lives in the tray until the user opens it (without a tray, it must show).
    if (!tray || !startedHidden(app, launch.argv, options.platform)) showWindow();
    // Each link waits in the engine for the user's answer; the window shows the question.
    links?.connect((link) => {
      running.offerLink(link);
      showWindow();
    });
  }

  async function shutDown(): Promise<void> {
    const work = (async () => {
      for (const dispose of disposers.splice(0)) dispose();
      await engine?.stop().catch((error: unknown) => logger.error('ENGINE', `stop failed: ${String(error)}`));
      tray?.destroy();
      tray = null;
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), options.quitTimeoutMs ?? 8000);
    });
    if ((await Promise.race([work, timeout])) === 'timeout') logger.error('APP', 'quitting before clean-up finished (timed out)');
    clearTimeout(timer);
  }

  const ready = app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      logger.error('APP', `start-up failed: ${message}`);
      dialog.showErrorBox('Steadfast VPN could not start', message);
      app.quit();
    });

  return { ready, window: liveWindow, engine: () => engine };
}
