import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY } from '../../shared/security/csp';

/**
 * The security decisions of the desktop shell as pure functions, so a checklist can test them
 * without Electron: what the window may load, who may talk to the engine, what may be opened
 * outside the app.
 */

/** The renderer's page: the built files on disk, or (development only) a Vite server on loopback. */
export type RendererSource =
  | { kind: 'file'; indexPath: string; rootDir: string; url: string }
  | { kind: 'dev'; url: string; origin: string };

/**
 * Options of the app window that a security review checks one by one. Node is kept out of the
 * page entirely (sandboxed, isolated, no integration anywhere), web security stays on, and the
 * features that widen what a page can do (webviews, experimental features, insecure content) are off.
 */
export const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  spellcheck: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
} as const;

export { CONTENT_SECURITY_POLICY };

/**
 * The policy for a source. With the Vite dev server, its React refresh preamble is an inline
 * script and hot reload talks over a WebSocket to the same loopback origin: only those two are
 * added, only in development.
 */
export function contentSecurityPolicy(source: RendererSource): string {
  if (source.kind === 'file') return CONTENT_SECURITY_POLICY;
  const ws = source.origin.replace(/^http/, 'ws');
  return CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace(
    "connect-src 'self'",
    `connect-src 'self' ${ws}`,
  );
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Where the window loads the UI from. `VPN_DEV_SERVER` is honoured only when it is an http(s) URL
 * on a loopback address: anything else would let an environment variable point the app (and its
 * engine API) at a page on the network.
 */
export function resolveRendererSource(
  rendererDir: string,
  env: NodeJS.ProcessEnv,
): { source: RendererSource; warning: string | null } {
  const indexPath = resolve(rendererDir, 'index.html');
  const fileSource: RendererSource = { kind: 'file', indexPath, rootDir: resolve(rendererDir), url: pathToFileURL(indexPath).href };
  const dev = env.VPN_DEV_SERVER?.trim();
  if (!dev) return { source: fileSource, warning: null };
  let url: URL;
  try {
    url = new URL(dev);
  } catch {
    return { source: fileSource, warning: `VPN_DEV_SERVER is not a URL; loading the built UI` };
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopbackHost(url.hostname) || url.username || url.password) {
    return { source: fileSource, warning: `VPN_DEV_SERVER must be an http URL on loopback (got ${url.protocol}//${url.host}); loading the built UI` };
  }
  return { source: { kind: 'dev', url: url.href, origin: url.origin }, warning: null };
}

/** True for the app's own page (any hash or query), and nothing else. */
export function isTrustedRendererUrl(url: string, source: RendererSource): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (source.kind === 'dev') return parsed.origin === source.origin;
  if (parsed.protocol !== 'file:' || (parsed.host !== '' && parsed.host !== 'localhost')) return false;
  return samePath(fileURLToPath(parsed), source.indexPath);
}

/**
 * Requests the page may make: its own files (inside the renderer folder, never elsewhere on disk),
 * inline data, and in development its loopback dev server. Nothing remote, ever.
 */
export function isAllowedRequest(url: string, source: RendererSource): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  switch (parsed.protocol) {
    case 'data:':
    case 'blob:':
    case 'devtools:':
      return true;
    case 'file:':
      if (source.kind !== 'file' || (parsed.host !== '' && parsed.host !== 'localhost')) return false;
      return isInside(fileURLToPath(parsed), source.rootDir);
    case 'http:':
    case 'https:':
    case 'ws:':
    case 'wss:':
      if (source.kind !== 'dev') return false;
      return parsed.host === new URL(source.origin).host;
    default:
      return false;
  }
}

/** Links the user may open in their browser: plain http(s) only (no file:, javascript:, custom schemes). */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** What a log may say about a URL: its origin (never a query, a path with tokens, or credentials). */
export function describeOrigin(url: string | null | undefined): string {
  if (!url) return 'an unknown page';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? 'a local file' : parsed.origin === 'null' ? `a ${parsed.protocol} page` : parsed.origin;
  } catch {
    return 'an unreadable URL';
  }
}

function samePath(a: string, b: string): boolean {
  const na = resolve(a);
  const nb = resolve(b);
  return process.platform === 'win32' || process.platform === 'darwin' ? na.toLowerCase() === nb.toLowerCase() : na === nb;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
