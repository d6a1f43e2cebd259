/**
 * Small hand-written stand-ins for the parts of Electron the shell uses, recording what they are
 * given, for tests that run where the Electron binary cannot (`vi.mock('electron', …)`). They model
 * only the behaviour the shell relies on: events with preventDefault, handler registries, and
 * the quit sequence (before-quit, then will-quit, which a listener may hold up).
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

type Listener = (...args: never[]) => unknown;

export interface PreventableEvent {
  preventDefault(): void;
  readonly defaultPrevented: boolean;
}

export function preventable(): PreventableEvent {
  let prevented = false;
  return {
    preventDefault: () => {
      prevented = true;
    },
    get defaultPrevented() {
      return prevented;
    },
  };
}

export interface FakeFrame {
  url: string;
  parent: FakeFrame | null;
}

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  readonly sent: [channel: string, payload: unknown][] = [];
  readonly mainFrame: FakeFrame = { url: '', parent: null };
  windowOpenHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | null = null;
  destroyed = false;

  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = handler;
  }
  /** Fires a navigation event; true if a listener prevented it. */
  attempt(event: 'will-navigate' | 'will-redirect', url: string): boolean {
    const e = preventable();
    this.emit(event, e, url);
    return e.defaultPrevented;
  }
  attemptFrameNavigation(url: string): boolean {
    const e = preventable();
    this.emit('will-frame-navigate', Object.assign(e, { url }));
    return e.defaultPrevented;
  }
  attemptWebview(): boolean {
    const e = preventable();
    this.emit('will-attach-webview', e, {}, {});
    return e.defaultPrevented;
  }
  /** A sub-frame of this page, e.g. an iframe showing another site. */
  subFrame(url: string): FakeFrame {
    return { url, parent: this.mainFrame };
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  loaded: { file?: string; url?: string } = {};
  visible = false;
  focused = false;
  minimized = false;
  destroyed = false;

  constructor(readonly options: Record<string, unknown> & { webPreferences?: Record<string, unknown> }) {
    super();
    FakeBrowserWindow.instances.push(this);
    fake.app.emit('web-contents-created', preventable(), this.webContents);
  }
  loadFile(path: string): Promise<void> {
    this.loaded = { file: path };
    this.webContents.mainFrame.url = pathToFileURL(path).href;
    return Promise.resolve();
  }
  loadURL(url: string): Promise<void> {
    this.loaded = { url };
    this.webContents.mainFrame.url = url;
    return Promise.resolve();
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
    this.focused = false;
  }
  focus(): void {
    this.focused = true;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  minimize(): void {
    this.minimized = true;
  }
  restore(): void {
    this.minimized = false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** The user clicks the close button: true if the window really closed. */
  close(): boolean {
    const e = preventable();
    this.emit('close', e);
    if (e.defaultPrevented) return false;
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.emit('closed');
    if (FakeBrowserWindow.instances.every((w) => w.destroyed)) fake.app.emit('window-all-closed');
    return true;
  }
}

export class FakeSession {
  permissionRequestHandler: ((contents: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void) | null = null;
  permissionCheckHandler: ((contents: unknown, permission: string, origin: string, details: unknown) => boolean) | null = null;
  headersListener: ((details: { url: string; resourceType: string; responseHeaders?: Record<string, string[]> }, cb: (r: { responseHeaders?: Record<string, string[]> }) => void) => void) | null = null;
  requestListener: ((details: { url: string; resourceType: string }, cb: (r: { cancel?: boolean }) => void) => void) | null = null;
  readonly webRequest = {
    onHeadersReceived: (listener: FakeSession['headersListener']) => {
      this.headersListener = listener;
    },
    onBeforeRequest: (listener: FakeSession['requestListener']) => {
      this.requestListener = listener;
    },
  };
  setPermissionRequestHandler(handler: FakeSession['permissionRequestHandler']): void {
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler: FakeSession['permissionCheckHandler']): void {
    this.permissionCheckHandler = handler;
  }
  /** Asks for a permission as a page would; resolves with the answer. */
  requestPermission(permission: string): Promise<boolean> {
    return new Promise((resolve) => this.permissionRequestHandler!(new FakeWebContents(), permission, resolve, {}));
  }
  headersFor(url: string, responseHeaders: Record<string, string[]> = {}): Record<string, string[]> | undefined {
    let out: Record<string, string[]> | undefined;
    this.headersListener!({ url, resourceType: 'mainFrame', responseHeaders }, (r) => {
      out = r.responseHeaders;
    });
    return out;
  }
  isRequestCancelled(url: string): boolean {
    let cancelled = false;
    this.requestListener!({ url, resourceType: 'xhr' }, (r) => {
      cancelled = r.cancel === true;
    });
    return cancelled;
  }
}

export class FakeApp extends EventEmitter {
  lockAvailable = true;
  isPackaged = false;
  quitCalls = 0;
  exited = false;
  private readyResolve!: () => void;
  private readyPromise = new Promise<void>((resolve) => {
    this.readyResolve = resolve;
  });

  requestSingleInstanceLock(): boolean {
    return this.lockAvailable;
  }
  /** What the app last asked of the OS's login items (macOS, Windows), and what the OS reports. */
  loginItem: { openAtLogin: boolean; openAsHidden?: boolean; path?: string; args?: string[] } = { openAtLogin: false };
  openedAsHidden = false;
  setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean; path?: string; args?: string[] }): void {
    this.loginItem = { ...settings };
  }
  getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAsHidden: boolean } {
    return { openAtLogin: this.loginItem.openAtLogin, wasOpenedAsHidden: this.openedAsHidden };
  }
  /** scheme → how the OS would start the app for it (path and arguments; none = this executable). */
  readonly protocolClients = new Map<string, { path?: string; args?: string[] }>();
  /** Schemes the OS refuses to register (a Linux desktop without xdg-settings). */
  refuseProtocols = new Set<string>();
  setAsDefaultProtocolClient(scheme: string, path?: string, args?: string[]): boolean {
    if (this.refuseProtocols.has(scheme)) return false;
    this.protocolClients.set(scheme, { ...(path ? { path } : {}), ...(args ? { args } : {}) });
    return true;
  }
  whenReady(): Promise<void> {
    return this.readyPromise;
  }
  /** The test says when Electron is ready. */
  makeReady(): void {
    this.readyResolve();
  }
  getLocale(): string {
    return 'en-US';
  }
  /** Where Electron keeps an app's data (the app always passes its own folder). */
  getPath(name: string): string {
    return `/nonexistent/fake-electron/${name}`;
  }
  getVersion(): string {
    return '0.0.0-fake';
  }
  /** Electron's sequence: before-quit, then will-quit; a will-quit listener may hold the exit up. */
  quit(): void {
    this.quitCalls++;
    const before = preventable();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    const will = preventable();
    this.emit('will-quit', will);
    if (!will.defaultPrevented) this.exited = true;
  }
  exit(): void {
    this.exited = true;
  }
}

export class FakeIpcMain {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** One-way messages from a page. */
  readonly listeners = new Map<string, Listener>();
  on(channel: string, listener: Listener): void {
    this.listeners.set(channel, listener);
  }
  /**
   * What `ipcRenderer.invoke(channel, ...args)` from `event`'s sender would get. A handler's thrown
   * error reaches the page as Electron sends it: one string, whatever the error carried.
   */
  async invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    try {
      return await (handler as (...a: unknown[]) => unknown)(event, ...args);
    } catch (error) {
      throw new Error(`Error invoking remote method '${channel}': ${String(error)}`);
    }
  }
}

export class FakeIpcRenderer {
  readonly invoked: unknown[][] = [];
  readonly listeners = new Map<string, Set<Listener>>();
  invoke(...args: unknown[]): Promise<unknown> {
    this.invoked.push(args);
    return Promise.resolve({ ok: true, value: { answered: args[0] } });
  }
  on(channel: string, listener: Listener): this {
    if (!this.listeners.has(channel)) this.listeners.set(channel, new Set());
    this.listeners.get(channel)!.add(listener);
    return this;
  }
  removeListener(channel: string, listener: Listener): this {
    this.listeners.get(channel)?.delete(listener);
    return this;
  }
  /** The main process sends an event to the page. */
  deliver(channel: string, payload: unknown): void {
    const event = { sender: this, senderId: 0, ports: [] };
    for (const listener of this.listeners.get(channel) ?? []) (listener as (...a: unknown[]) => void)(event, payload);
  }
}

/** Electron's Notification: records what was shown (`fake.notificationsSupported` says whether the desktop has them). */
export class FakeNotification {
  static shown: { title: string; body: string }[] = [];
  static isSupported(): boolean {
    return fake.notificationsSupported;
  }
  constructor(private readonly options: { title: string; body: string }) {}
  show(): void {
    FakeNotification.shown.push({ title: this.options.title, body: this.options.body });
  }
}

export class FakeTray extends EventEmitter {
  static instances: FakeTray[] = [];
  menus: { template: MenuTemplateItem[] }[] = [];
  tooltip = '';
  images: string[] = [];
  destroyed = false;
  constructor(image: { path: string }) {
    super();
    this.images.push(image.path);
    FakeTray.instances.push(this);
  }
  setContextMenu(menu: { template: MenuTemplateItem[] }): void {
    this.menus.push(menu);
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setImage(image: { path: string }): void {
    this.images.push(image.path);
  }
  destroy(): void {
    this.destroyed = true;
  }
  get menu(): MenuTemplateItem[] {
    return this.menus.at(-1)?.template ?? [];
  }
}

export interface MenuTemplateItem {
  label?: string;
  type?: string;
  role?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
  icon?: FakeNativeImage;
}

/** nativeImage.createFromPath as Electron does it: the PNG is read at once; a file it cannot read gives an empty image. */
export interface FakeNativeImage {
  path: string;
  isEmpty(): boolean;
  getSize(): { width: number; height: number };
}

function imageFromPath(path: string): FakeNativeImage {
  let size = { width: 0, height: 0 };
  try {
    const data = readFileSync(path);
    if (data.subarray(1, 4).toString('latin1') === 'PNG') size = { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  } catch {
    // Electron's createFromPath gives an empty image for a missing file, without an error.
  }
  return { path, isEmpty: () => size.width === 0, getSize: () => size };
}

/**
 * An API as the page sees it across Electron's contextBridge: values are copied, and an error a
 * function throws (or its promise rejects with) is made again in the page's world from its message
 * alone, whatever else it carried.
 */
export function acrossContextBridge<T extends object>(api: T): T {
  const remade = (error: unknown) => new Error(error instanceof Error ? error.message : String(error));
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(api)) {
    copy[key] =
      typeof value === 'function'
        ? (...args: unknown[]) => {
            try {
              const result: unknown = value(...args);
              return result instanceof Promise ? result.then(structuredClone, (error: unknown) => Promise.reject(remade(error))) : result;
            } catch (error) {
              throw remade(error);
            }
          }
        : value;
  }
  return copy as T;
}

/** The shared state of the fake module; `resetFakeElectron()` between tests. */
export const fake = {
  app: new FakeApp(),
  ipcMain: new FakeIpcMain(),
  ipcRenderer: new FakeIpcRenderer(),
  defaultSession: new FakeSession(),
  exposed: [] as [name: string, api: unknown][],
  openedExternally: [] as string[],
  errorBoxes: [] as [title: string, content: string][],
  notificationsSupported: true,
  applicationMenu: undefined as { template: MenuTemplateItem[] } | null | undefined,
  displays: [{ size: { width: 1280, height: 800 }, scaleFactor: 2 }],
  /** Screens as desktopCapturer sees them; `requested` records the sizes asked for. */
  desktopCapturer: {
    requested: [] as { types: string[]; thumbnailSize: { width: number; height: number } }[],
    screens: ['data:image/png;base64,c2NyZWVuLTE='],
    async getSources(options: { types: string[]; thumbnailSize: { width: number; height: number } }) {
      this.requested.push(options);
      return this.screens.map((url) => ({ thumbnail: { isEmpty: () => false, toDataURL: () => url } }));
    },
  },
};

export function resetFakeElectron(): void {
  fake.app.removeAllListeners();
  fake.app = new FakeApp();
  fake.ipcMain = new FakeIpcMain();
  fake.ipcRenderer = new FakeIpcRenderer();
  fake.defaultSession = new FakeSession();
  fake.exposed = [];
  fake.openedExternally = [];
  fake.errorBoxes = [];
  fake.notificationsSupported = true;
  FakeNotification.shown = [];
  fake.applicationMenu = undefined;
  fake.displays = [{ size: { width: 1280, height: 800 }, scaleFactor: 2 }];
  fake.desktopCapturer.requested = [];
  fake.desktopCapturer.screens = ['data:image/png;base64,c2NyZWVuLTE='];
  FakeBrowserWindow.instances = [];
  FakeTray.instances = [];
}

/**
 * The module object `vi.mock('electron', …)` returns. Properties are getters so a reset between
 * tests is seen by code that imported them once.
 */
export function fakeElectronModule(): Record<string, unknown> {
  const module: Record<string, unknown> = {
    get default() {
      return module;
    },
    get app() {
      return fake.app;
    },
    get ipcMain() {
      return fake.ipcMain;
    },
    get ipcRenderer() {
      return fake.ipcRenderer;
    },
    get session() {
      return { defaultSession: fake.defaultSession };
    },
    BrowserWindow: FakeBrowserWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: {
      buildFromTemplate: (template: MenuTemplateItem[]) => ({ template }),
      setApplicationMenu: (menu: { template: MenuTemplateItem[] } | null) => {
        fake.applicationMenu = menu;
      },
    },
    nativeImage: { createFromPath: imageFromPath },
    get desktopCapturer() {
      return fake.desktopCapturer;
    },
    get screen() {
      return { getAllDisplays: () => fake.displays };
    },
    shell: {
      openExternal: (url: string) => {
        fake.openedExternally.push(url);
        return Promise.resolve();
      },
    },
    dialog: {
      showErrorBox: (title: string, content: string) => {
        fake.errorBoxes.push([title, content]);
      },
    },
    contextBridge: {
      exposeInMainWorld: (name: string, api: unknown) => {
        fake.exposed.push([name, api]);
      },
    },
  };
  return module;
}
