import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../../app/log/logger';
import { cspMetaTag } from '../../shared/security/csp';
import { CONTENT_SECURITY_POLICY, contentSecurityPolicy, resolveRendererSource } from './security';
import { fake, FakeBrowserWindow, resetFakeElectron } from './testing/fake-electron';
import { createMainWindow, hardenWebContents, installSessionPolicies } from './window';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectronModule());

// The Electron security checklist, checked against the options and handlers the shell really installs.

const rendererDir = '/opt/steadfast/dist/renderer';
const { source } = resolveRendererSource(rendererDir, {});
const indexUrl = pathToFileURL(join(rendererDir, 'index.html')).href;

function openWindow(src = source) {
  const { logger, lines } = memoryLogger();
  const window = createMainWindow({ source: src, preloadPath: '/opt/steadfast/dist/main/preload.cjs', devTools: false, logger }) as unknown as FakeBrowserWindow;
  return { window, contents: window.webContents, lines };
}

/** "script-src 'self'; object-src 'none'" → { 'script-src': ["'self'"], … } */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

beforeEach(() => resetFakeElectron());

describe('window options (security checklist)', () => {
  it('isolates the page from Node and Electron: contextIsolation, sandbox, no nodeIntegration anywhere', () => {
    const prefs = openWindow().window.options.webPreferences!;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
    });
  });

  it('keeps web security on and the risky features off', () => {
    const prefs = openWindow().window.options.webPreferences!;
    expect(prefs).toMatchObject({
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs.devTools).toBe(false);
  });

  it('uses the built preload and loads the built UI from disk, not from the network', () => {
    const { window } = openWindow();
    expect(window.options.webPreferences!.preload).toBe('/opt/steadfast/dist/main/preload.cjs');
    expect(window.loaded).toEqual({ file: join(rendererDir, 'index.html') });
  });

  it('shows the window only once it has something to show', () => {
    const { window } = openWindow();
    expect(window.visible).toBe(false);
    window.emit('ready-to-show');
    expect(window.visible).toBe(true);
  });
});

describe('the dev server is used only on loopback', () => {
  it.each([
    ['http://localhost:5173', 'dev'],
    ['http://127.0.0.1:5173/', 'dev'],
    ['http://[::1]:5173', 'dev'],
    ['http://192.168.1.10:5173', 'file'],
    ['http://evil.example:5173', 'file'],
    ['http://user:pw@localhost:5173', 'file'],
    ['file:///tmp/index.html', 'file'],
    ['not a url', 'file'],
  ])('VPN_DEV_SERVER=%s → %s', (url, kind) => {
    const resolved = resolveRendererSource(rendererDir, { VPN_DEV_SERVER: url });
    expect(resolved.source.kind).toBe(kind);
    expect(resolved.warning === null).toBe(kind === 'dev');
  });

  it('loads the dev server by URL when allowed', () => {
    const dev = resolveRendererSource(rendererDir, { VPN_DEV_SERVER: 'http://127.0.0.1:5173' }).source;
    expect(openWindow(dev).window.loaded).toEqual({ url: 'http://127.0.0.1:5173/' });
  });
});

describe('Content-Security-Policy', () => {
  it('is the strict policy: own files only, no inline or eval script, no plugins, no base, no framing, no forms', () => {
    const d = directives(CONTENT_SECURITY_POLICY);
    expect(d).toEqual({
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'frame-ancestors': ["'none'"],
      'form-action': ["'none'"],
    });
  });

  it('is set on every response (replacing any other CSP header, whatever its case)', () => {
    const { logger } = memoryLogger();
    installSessionPolicies(fake.defaultSession as never, source, logger);
    const headers = fake.defaultSession.headersFor(indexUrl, { 'content-security-policy': ['default-src *'], 'X-Other': ['1'] });
    expect(headers).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY], 'X-Other': ['1'] });
  });

  it('with the dev server, allows only its inline refresh preamble and its loopback WebSocket', () => {
    const dev = resolveRendererSource(rendererDir, { VPN_DEV_SERVER: 'http://localhost:5173' }).source;
    const d = directives(contentSecurityPolicy(dev));
    expect(d['script-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect(d['connect-src']).toEqual(["'self'", 'ws://localhost:5173']);
    expect(d['object-src']).toEqual(["'none'"]);
  });

  it("the UI's own page carries the same policy in a meta tag (for file://, where headers may not apply)", () => {
    // The build adds it (renderer/vite.config.ts); here, the tag it adds.
    const html = cspMetaTag();
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html);
    expect(meta, 'renderer/index.html has a CSP meta tag').not.toBeNull();
    const page = directives(meta![1]!);
    const ours = directives(CONTENT_SECURITY_POLICY);
    // frame-ancestors is ignored in a meta tag by design; everything else must match.
    for (const name of Object.keys(ours).filter((n) => n !== 'frame-ancestors')) expect(page[name], name).toEqual(ours[name]);
  });
});

describe('navigation and new windows are denied', () => {
  it('navigating away (a link, a script, a redirect, a frame) is prevented; the app’s own page is not', () => {
    const { contents, lines } = openWindow();
    expect(contents.attempt('will-navigate', 'https://evil.example/phish')).toBe(true);
    expect(contents.attempt('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.attempt('will-redirect', 'https://evil.example/')).toBe(true);
    expect(contents.attemptFrameNavigation('https://evil.example/frame')).toBe(true);
    expect(contents.attempt('will-navigate', `${indexUrl}#/settings`)).toBe(false);
    expect(lines.some((l) => l.includes('blocked navigation to https://evil.example'))).toBe(true);
    expect(lines.join('\n')).not.toContain('/phish');
  });

  it('window.open is always denied; http(s) links open in the user’s browser, nothing else does', () => {
    const { contents } = openWindow();
    const open = (url: string) => contents.windowOpenHandler!({ url });
    for (const url of ['https://example.org/help', 'http://example.org/', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'steadfast://x', 'data:text/html,hi']) {
      expect(open(url)).toEqual({ action: 'deny' });
    }
    expect(fake.openedExternally).toEqual(['https://example.org/help', 'http://example.org/']);
  });

  it('webviews cannot be attached', () => {
    expect(openWindow().contents.attemptWebview()).toBe(true);
  });

  it('hardening works on any web contents it is given', () => {
    const opened: string[] = [];
    const { logger } = memoryLogger();
    const contents = new FakeBrowserWindow({}).webContents;
    hardenWebContents(contents as never, source, logger, async (url) => void opened.push(url));
    expect(contents.windowOpenHandler!({ url: 'https://a.example' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://a.example']);
  });
});

describe('session rules', () => {
  it('every permission request and check is refused', async () => {
    const { logger } = memoryLogger();
    installSessionPolicies(fake.defaultSession as never, source, logger);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem']) {
      expect(await fake.defaultSession.requestPermission(permission)).toBe(false);
      expect(fake.defaultSession.permissionCheckHandler!(null, permission, 'file://', {})).toBe(false);
    }
  });

  it('no remote content: only the UI’s own files (not the rest of the disk) and inline data may load', () => {
    const { logger } = memoryLogger();
    installSessionPolicies(fake.defaultSession as never, source, logger);
    const cancelled = (url: string) => fake.defaultSession.isRequestCancelled(url);
    expect(cancelled(indexUrl)).toBe(false);
    expect(cancelled(pathToFileURL(join(rendererDir, 'assets', 'index-abc.js')).href)).toBe(false);
    expect(cancelled('data:image/png;base64,AAAA')).toBe(false);
    expect(cancelled('https://cdn.example/lib.js')).toBe(true);
    expect(cancelled('http://127.0.0.1:10809/')).toBe(true);
    expect(cancelled('ws://127.0.0.1:9000/')).toBe(true);
    expect(cancelled('file:///etc/passwd')).toBe(true);
    expect(cancelled(pathToFileURL(join(rendererDir, '..', 'main', 'electron.cjs')).href)).toBe(true);
  });

  it('in development, the loopback dev server (and its WebSocket) and nothing else', () => {
    const { logger } = memoryLogger();
    const dev = resolveRendererSource(rendererDir, { VPN_DEV_SERVER: 'http://localhost:5173' }).source;
    installSessionPolicies(fake.defaultSession as never, dev, logger);
    const cancelled = (url: string) => fake.defaultSession.isRequestCancelled(url);
    expect(cancelled('http://localhost:5173/src/main.ts')).toBe(false);
    expect(cancelled('ws://localhost:5173/')).toBe(false);
    expect(cancelled('http://localhost:5174/')).toBe(true);
    expect(cancelled(indexUrl)).toBe(true);
  });
});
