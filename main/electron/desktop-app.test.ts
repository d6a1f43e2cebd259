import { IDLE_SPEED_TEST } from '../../shared/domain/speed-test';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { GLOBAL_ROUTING_VIEW } from '../../shared/domain/routing';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../../app/log/logger';
import type { Engine, EngineOptions } from '../../app/engine';
import type { CommandRunner } from '../../app/system-proxy/command';
import type { ConnectionState } from '../../shared/domain/connection';
import { type AppSnapshot, type EventName, type EventPayloads, INVOKE_CHANNELS } from '../../shared/ipc/contract';
import { DEFAULT_SETTINGS, type Settings } from '../../shared/settings';
import { type DesktopAppOptions, startDesktopApp } from './desktop-app';
import type { CreateEngine } from './engine-loader';
import { EngineRefusal } from '../../shared/domain/refusal';
import { fake, FakeBrowserWindow, FakeNotification, FakeTray, resetFakeElectron } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectronModule());

const connection = (state: ConnectionState['state']): ConnectionState => ({
  state,
  serverId: state === 'disconnected' ? null : 's1',
  httpProxy: state === 'disconnected' ? null : 'http://127.0.0.1:10809',
  socksProxy: null,
  since: 0,
  error: null,
  core: null,
});

/** An engine that answers every channel, records calls, and can emit events. */
function fakeEngine(options: { stop?: () => Promise<void>; settings?: Partial<Settings>; refuseConnect?: Error } = {}) {
  const calls: [string, unknown][] = [];
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  let stopped = 0;
  const snapshot = {
    subscriptions: [],
    statuses: {},
    unsupported: {},
    connection: connection('disconnected'),
    auto: { subscriptionId: null, excluded: {}, returnCandidate: null, networkLostUntil: null, timeline: [] },
    settings: { ...DEFAULT_SETTINGS, mode: 'system-proxy', ...options.settings },
    core: null,
    testProgress: { running: false, done: 0, total: 0 },
    speedTest: IDLE_SPEED_TEST,
    demo: false,
    problems: [],
    importRequests: [],
    routing: GLOBAL_ROUTING_VIEW,
  } satisfies AppSnapshot;
  const engine = {
    ...Object.fromEntries(
      INVOKE_CHANNELS.map((channel) => [
        channel,
        async (request: unknown) => {
          calls.push([channel, request]);
          if (channel === 'connect' && options.refuseConnect) throw options.refuseConnect;
          return channel === 'getSnapshot' ? snapshot : null;
        },
      ]),
    ),
    on<E extends EventName>(event: E, listener: (p: EventPayloads[E]) => void) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener as (p: unknown) => void);
      return () => listeners.get(event)!.delete(listener as (p: unknown) => void);
    },
    offerLink: (raw: string) => calls.push(['offerLink', raw]),
    stop: async () => {
      stopped++;
      await options.stop?.();
    },
  } as unknown as Engine;
  return {
    engine,
    calls,
    stopped: () => stopped,
    emit<E extends EventName>(event: E, payload: EventPayloads[E]) {
      listeners.get(event)?.forEach((l) => l(payload));
    },
    listenerCount: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
  };
}

function world(overrides: Partial<DesktopAppOptions> = {}, engineOptions: Parameters<typeof fakeEngine>[0] = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'desktop-'));
  const proxyRunner: CommandRunner = async () => ({ code: 0, stdout: '', stderr: '' });
  const { logger, lines } = memoryLogger();
  const e = fakeEngine(engineOptions);
  const engineCreatedWith: EngineOptions[] = [];
  const options: DesktopAppOptions = {
    loadEngine: async () => (async (o) => {
      engineCreatedWith.push(o);
      return e.engine;
    }) as CreateEngine,
    dataDir,
    resourcesDir: '/opt/steadfast/resources',
    rendererDir: '/opt/steadfast/dist/renderer',
    preloadPath: '/opt/steadfast/dist/main/preload.cjs',
    assetsDir: '/opt/steadfast/dist/assets',
    env: {},
    platform: 'win32',
    logger,
    systemProxy: { run: proxyRunner },
    quitTimeoutMs: 2000,
    handleSignals: false,
    ...overrides,
  };
  return { options, lines, dataDir, engine: e, engineCreatedWith };
}

async function started(w: ReturnType<typeof world>) {
  const desktop = startDesktopApp(w.options)!;
  fake.app.makeReady();
  await desktop.ready;
  return { desktop, window: FakeBrowserWindow.instances[0]!, tray: FakeTray.instances[0]! };
}

beforeEach(() => resetFakeElectron());

const SUB = 'https://panel.example.com/sub/abc';
const LINK = `hiddify://import/${SUB}#Mine`;
const offered = (w: ReturnType<typeof world>) => w.engine.calls.filter(([channel]) => channel === 'offerLink').map(([, raw]) => raw);

describe('"add to app" links', () => {
  it('registers the panels\' schemes with the OS; in development with Electron and the app\'s path', async () => {
    await started(world({ launch: { argv: ['/usr/lib/electron', 'dist/main/electron.cjs'], defaultApp: true, execPath: '/usr/lib/electron' } }));
    expect([...fake.app.protocolClients.keys()].sort()).toEqual(['clash', 'clashmeta', 'hiddify', 'sing-box', 'steadfast', 'v2rayn', 'v2rayng']);
    expect(fake.app.protocolClients.get('hiddify')).toEqual({ path: '/usr/lib/electron', args: [join(process.cwd(), 'dist/main/electron.cjs')] });
  });

  it('packaged, the OS starts the app itself; a scheme it refuses is said in the log', async () => {
    fake.app.refuseProtocols.add('clash');
    const w = world({ launch: { argv: ['/opt/Steadfast VPN/steadfast-vpn'], defaultApp: false, execPath: '/opt/Steadfast VPN/steadfast-vpn' } });
    await started(w);
    expect(fake.app.protocolClients.get('v2rayn')).toEqual({});
    expect(w.lines.join('\n')).toMatch(/did not register this app for clash:\/\/ links/);
  });

  it('a link that launched the app waits for the engine, then is offered for confirmation', async () => {
    const w = world({ launch: { argv: ['/opt/steadfast-vpn', '--no-sandbox', LINK], defaultApp: false, execPath: '/opt/steadfast-vpn' } });
    const desktop = startDesktopApp(w.options)!;
    expect(offered(w)).toEqual([]);
    fake.app.makeReady();
    await desktop.ready;
    expect(offered(w)).toEqual([LINK]);
  });

  it('a second instance started by a clicked link hands it to the first, which shows its window', async () => {
    const w = world();
    const { window } = await started(w);
    window.hide();
    fake.app.emit('second-instance', {}, ['/opt/steadfast-vpn', `v2rayn://install-sub?url=${encodeURIComponent(SUB)}`], '/');
    expect(offered(w)).toEqual([`v2rayn://install-sub?url=${encodeURIComponent(SUB)}`]);
    expect(window).toMatchObject({ visible: true, focused: true });
  });

  it('macOS hands links over as open-url, even before the app is ready; other schemes are ignored', async () => {
    const w = world({ platform: 'darwin' });
    const desktop = startDesktopApp(w.options)!;
    let prevented = false;
    fake.app.emit('open-url', { preventDefault: () => (prevented = true) }, LINK);
    fake.app.emit('open-url', { preventDefault: () => undefined }, 'https://example.com/');
    fake.app.makeReady();
    await desktop.ready;
    expect(prevented).toBe(true);
    expect(offered(w)).toEqual([LINK]);
  });
});

describe('a QR code on the screen', () => {
  it('the page\'s captureScreen is answered by the shell at the screen\'s full resolution, not by the engine', async () => {
    const w = world();
    const { window } = await started(w);
    const answer = await fake.ipcMain.invoke('vpn:captureScreen', { sender: window.webContents, senderFrame: window.webContents.mainFrame }, {});
    expect(answer).toEqual({ ok: true, value: { screens: ['data:image/png;base64,c2NyZWVuLTE='] } });
    expect(fake.desktopCapturer.requested).toEqual([{ types: ['screen'], thumbnailSize: { width: 2560, height: 1600 } }]);
    expect(w.engine.calls.some(([channel]) => channel === 'captureScreen')).toBe(false);
  });
});

describe('start at login', () => {
  const tray = () => FakeTray.instances[0]!;
  const showItem = () => tray().menu.find((item) => item.label === 'Show Steadfast VPN')!;

  it('is off by default and then leaves no trace: no login item, no autostart entry', async () => {
    const config = mkdtempSync(join(tmpdir(), 'xdg-'));
    await started(world({ platform: 'linux', env: { XDG_CONFIG_HOME: config } }));
    expect(fake.app.loginItem).toEqual({ openAtLogin: false });
    expect(existsSync(join(config, 'autostart'))).toBe(false);
  });

  it('Windows: a login item that starts the app with --hidden; turned off in Settings, removed', async () => {
    const w = world({ launch: { argv: ['C:\\Apps\\Steadfast VPN.exe'], defaultApp: false, execPath: 'C:\\Apps\\Steadfast VPN.exe' } }, { settings: { startAtLogin: true } });
    await started(w);
    await vi.waitFor(() => expect(fake.app.loginItem).toEqual({ openAtLogin: true, path: 'C:\\Apps\\Steadfast VPN.exe', args: ['--hidden'] }));
    w.engine.emit('settings', { ...DEFAULT_SETTINGS, startAtLogin: false });
    await vi.waitFor(() => expect(fake.app.loginItem.openAtLogin).toBe(false));
  });

  it('macOS: a login item opened hidden', async () => {
    await started(world({ platform: 'darwin' }, { settings: { startAtLogin: true } }));
    await vi.waitFor(() => expect(fake.app.loginItem).toEqual({ openAtLogin: true, openAsHidden: true }));
  });

  it('Linux: an XDG autostart entry running the AppImage with --hidden, removed when turned off', async () => {
    const config = mkdtempSync(join(tmpdir(), 'xdg-'));
    const w = world({ platform: 'linux', env: { XDG_CONFIG_HOME: config, APPIMAGE: '/home/u/Apps/Steadfast VPN.AppImage' } }, { settings: { startAtLogin: true } });
    await started(w);
    const entry = join(config, 'autostart', 'steadfast-vpn.desktop');
    await vi.waitFor(() => expect(existsSync(entry)).toBe(true));
    const text = readFileSync(entry, 'utf8');
    expect(text).toMatch(/^\[Desktop Entry\]\nType=Application\n/);
    expect(text).toContain('Exec="/home/u/Apps/Steadfast VPN.AppImage" --hidden\n');
    w.engine.emit('settings', { ...DEFAULT_SETTINGS, startAtLogin: false });
    await vi.waitFor(() => expect(existsSync(entry)).toBe(false));
  });

  it('started by the login item, the app stays in the tray until "Show"', async () => {
    await started(world({ launch: { argv: ['steadfast-vpn', '--hidden'], defaultApp: false, execPath: 'steadfast-vpn' } }));
    expect(FakeBrowserWindow.instances).toEqual([]);
    showItem().click!();
    expect(FakeBrowserWindow.instances).toHaveLength(1);
  });

  it('macOS opened hidden at login: no window either', async () => {
    fake.app.openedAsHidden = true;
    await started(world({ platform: 'darwin' }));
    expect(FakeBrowserWindow.instances).toEqual([]);
  });

  it('"connect on start" connects once, the engine\'s way (Auto\'s pick when Auto is on); off, it does not', async () => {
    const on = world({}, { settings: { connectOnStart: true } });
    await started(on);
    expect(on.engine.calls.filter(([channel]) => channel === 'connect')).toEqual([['connect', {}]]);
    resetFakeElectron();
    const off = world();
    await started(off);
    expect(off.engine.calls.filter(([channel]) => channel === 'connect')).toEqual([]);
  });
});

describe('single instance', () => {
  it('when another instance holds the lock, this one quits before doing anything', async () => {
    const w = world();
    fake.app.lockAvailable = false;
    expect(startDesktopApp(w.options)).toBeNull();
    expect(fake.app.quitCalls).toBe(1);
    fake.app.makeReady();
    await new Promise((r) => setTimeout(r, 10));
    expect(FakeBrowserWindow.instances).toEqual([]);
    expect(w.engineCreatedWith).toEqual([]);
  });

  it('a second launch brings the running window back: restored, shown and focused', async () => {
    const { window } = await started(world());
    window.minimize();
    window.hide();
    fake.app.emit('second-instance', {}, ['steadfast-vpn'], '/');
    expect(window).toMatchObject({ minimized: false, visible: true, focused: true });
    expect(FakeBrowserWindow.instances).toHaveLength(1);
  });
});

describe('start-up', () => {
  it('nothing happens before Electron is ready; then engine, window, IPC and tray come up', async () => {
    const w = world();
    const desktop = startDesktopApp(w.options)!;
    await new Promise((r) => setTimeout(r, 10));
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    fake.app.makeReady();
    await desktop.ready;
    // The engine runs system-proxy mode (and puts back a crashed run's proxy) with the host's access to the OS settings.
    expect(w.engineCreatedWith).toEqual([
      { dataDir: w.dataDir, resourcesDir: '/opt/steadfast/resources', logger: w.options.logger, defaultMode: 'system-proxy', systemProxy: w.options.systemProxy },
    ]);
    const window = FakeBrowserWindow.instances[0]!;
    expect(window.loaded).toEqual({ file: join('/opt/steadfast/dist/renderer', 'index.html') });
    window.emit('ready-to-show');
    expect(window.visible).toBe(true);
    expect(fake.ipcMain.handlers.size).toBe(INVOKE_CHANNELS.length);
    expect(FakeTray.instances).toHaveLength(1);
    expect(fake.applicationMenu).toBeNull();
    expect(fake.defaultSession.permissionRequestHandler).not.toBeNull();
  });

  it('the page’s requests reach the engine; a foreign page’s do not', async () => {
    const w = world();
    const { window } = await started(w);
    const ours = { sender: window.webContents, senderFrame: window.webContents.mainFrame };
    await fake.ipcMain.invoke('vpn:connect', ours, { serverId: 's9' });
    window.webContents.mainFrame.url = 'https://evil.example/';
    await expect(fake.ipcMain.invoke('vpn:disconnect', ours, {})).rejects.toThrow(/refused/);
    expect(w.engine.calls.filter(([c]) => c !== 'getSnapshot')).toEqual([['connect', { serverId: 's9' }]]);
  });

  it('engine events reach the page and the tray', async () => {
    const w = world();
    const { window, tray } = await started(w);
    w.engine.emit('connection', connection('connected'));
    expect(window.webContents.sent).toContainEqual(['vpn:event:connection', connection('connected')]);
    expect(tray.menu.some((i) => i.label === 'Disconnect')).toBe(true);
  });

  it('tray actions drive the engine through the same validated requests', async () => {
    const w = world();
    const { tray } = await started(w);
    w.engine.emit('connection', connection('connected'));
    tray.menu.find((i) => i.label === 'Disconnect')!.click!();
    await vi.waitFor(() => expect(w.engine.calls.map(([c]) => c)).toContain('disconnect'));
  });

  it('the tray’s Connect names no server: the engine chooses, as for the window’s button', async () => {
    const w = world();
    const { tray } = await started(w);
    const servers = [{ id: 's1', name: 'Amsterdam', subscriptionId: 'sub' }] as AppSnapshot['subscriptions'][number]['servers'];
    w.engine.emit('subscriptions', [{ id: 'sub', name: 'Work', servers, usage: null, rejected: [], updatedAt: null, lastError: null, pendingEmpty: false }]);
    tray.menu.find((i) => i.label === 'Connect')!.click!();
    await vi.waitFor(() => expect(w.engine.calls.filter(([c]) => c === 'connect')).toEqual([['connect', {}]]));
  });

  it('a Connect the engine refuses from the tray is told in a notification in the user’s language, and logged in the engine’s words', async () => {
    const refusal = new EngineRefusal('no-server-chosen', 'choose a server to connect to, or turn Auto on for a subscription');
    const w = world({}, { refuseConnect: refusal, settings: { language: 'fa' } });
    const { tray } = await started(w);
    const servers = [{ id: 's1', name: 'Amsterdam', subscriptionId: 'sub' }] as AppSnapshot['subscriptions'][number]['servers'];
    w.engine.emit('subscriptions', [{ id: 'sub', name: 'Work', servers, usage: null, rejected: [], updatedAt: null, lastError: null, pendingEmpty: false }]);
    tray.menu.find((i) => i.label === 'اتصال')!.click!();
    await vi.waitFor(() =>
      expect(FakeNotification.shown).toEqual([{ title: 'اتصال انجام نشد', body: 'سروری برای اتصال انتخاب کنید، یا حالت خودکار را برای یک اشتراک روشن کنید.' }]),
    );
    expect(w.lines.join('\n')).toMatch(/connect failed: choose a server to connect to/);
  });

  it('an engine that cannot start is reported to the user and the app quits', async () => {
    const w = world({ loadEngine: async () => async () => Promise.reject(new Error('no core found: install v2ray or xray')) });
    const desktop = startDesktopApp(w.options)!;
    fake.app.makeReady();
    await desktop.ready;
    expect(fake.errorBoxes).toEqual([['Steadfast VPN could not start', 'no core found: install v2ray or xray']]);
    await vi.waitFor(() => expect(fake.app.exited).toBe(true));
  });

  it('other web contents get no new windows and no webviews', async () => {
    await started(world());
    const stray = new FakeBrowserWindow({}).webContents;
    expect(stray.windowOpenHandler!({ url: 'https://x.example' })).toEqual({ action: 'deny' });
    expect(stray.attemptWebview()).toBe(true);
  });
});

describe('window and tray life', () => {
  it('closing the window keeps the VPN running in the tray; "Show" brings it back', async () => {
    const w = world();
    const { window, tray } = await started(w);
    expect(window.close()).toBe(false);
    expect(window.visible).toBe(false);
    expect(w.engine.stopped()).toBe(0);
    expect(fake.app.exited).toBe(false);
    tray.menu.find((i) => i.label === 'Show Steadfast VPN')!.click!();
    expect(window.visible).toBe(true);
  });
});

describe('quitting', () => {
  it('stops the engine (which restores the system proxy), then exits: the tray, the IPC handlers and every listener are gone', async () => {
    let engineStopping = false;
    let exitedBeforeStopEnded = false;
    const w = world({}, { stop: async () => {
      engineStopping = true;
      await new Promise((resolve) => setTimeout(resolve, 20));
      exitedBeforeStopEnded = fake.app.exited;
    } });
    const { window, tray } = await started(w);
    w.engine.emit('connection', connection('connected'));

    tray.menu.find((i) => i.label === 'Quit')!.click!();
    expect(fake.app.exited).toBe(false); // held up by the clean-up
    await vi.waitFor(() => expect(fake.app.exited).toBe(true));
    expect(engineStopping).toBe(true);
    expect(exitedBeforeStopEnded).toBe(false);
    expect(w.engine.stopped()).toBe(1);
    expect(tray.destroyed).toBe(true);
    expect(w.engine.listenerCount()).toBe(0);
    expect(fake.ipcMain.handlers.size).toBe(0);
    expect(window.close()).toBe(true);
  });

  it('never hangs on an engine that does not stop', async () => {
    const w = world({ quitTimeoutMs: 50 }, { stop: () => new Promise(() => undefined) });
    await started(w);
    fake.app.quit();
    await vi.waitFor(() => expect(fake.app.exited).toBe(true));
    expect(w.engine.stopped()).toBe(1);
    expect(w.lines.some((l) => /timed out/.test(l))).toBe(true);
  });

  it('without a tray (some Linux desktops), closing the window quits', async () => {
    const w = world();
    const tray = FakeTray;
    const original = tray.prototype.setContextMenu;
    tray.prototype.setContextMenu = () => {
      throw new Error('no StatusNotifier host');
    };
    try {
      const { window } = await started(w);
      expect(window.close()).toBe(true);
      await vi.waitFor(() => expect(fake.app.exited).toBe(true));
    } finally {
      tray.prototype.setContextMenu = original;
    }
  });
});

describe('the page URL the sender check trusts', () => {
  it('is the built index.html', async () => {
    const { window } = await started(world());
    expect(window.webContents.mainFrame.url).toBe(pathToFileURL(join('/opt/steadfast/dist/renderer', 'index.html')).href);
  });
});
