/**
 * Issue 9's rule on secrets at rest: the only files of the app's data folder that may hold a
 * server's credentials are its config files, and those are readable by the user alone (0600).
 * Everything else the app writes (its log at debug level, caches, history, Auto's state) must not
 * contain any UUID or password of the user's servers, in any of the shapes a careless write would
 * leave (as is, upper case, without dashes, or inside a shadowsocks link's base64 user info).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Config files that hold credentials by design (with the last good copy JsonFile keeps beside each). */
const CONFIG_FILES = [/^subscriptions\.json(\.bak)?$/, /^settings\.json(\.bak)?$/, /^runtime\/[^/]+\.json(\.bak)?$/];

export interface Secret {
  /** What it is, for the failure message ("uuid of A1"); never the secret itself. */
  label: string;
  value: string;
}

export interface CredentialsOf {
  id: string;
  uuid: string;
  password: string;
  ssMethod: string;
}

/** Every shape of every credential a file could carry. */
export function secretShapes(servers: readonly CredentialsOf[]): Secret[] {
  const shapes: Secret[] = [];
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  for (const server of servers) {
    shapes.push({ label: `uuid of ${server.id}`, value: server.uuid.toLowerCase() });
    shapes.push({ label: `uuid of ${server.id} (upper case)`, value: server.uuid.toUpperCase() });
    shapes.push({ label: `uuid of ${server.id} (no dashes)`, value: server.uuid.replace(/-/g, '').toLowerCase() });
    shapes.push({ label: `password of ${server.id}`, value: server.password });
    const userInfo = base64(`${server.ssMethod}:${server.password}`);
    shapes.push({ label: `shadowsocks user info of ${server.id}`, value: userInfo.replace(/=+$/, '') });
    shapes.push({ label: `shadowsocks user info of ${server.id} (base64url)`, value: userInfo.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') });
  }
  // Shapes that coincide (base64 without + or / is its own base64url) are searched once.
  return shapes.filter((shape, i) => shapes.findIndex((other) => other.value === shape.value) === i);
}

export interface ScanResult {
  /** Config files found, with their permission bits (e.g. 0o600). */
  configFiles: { path: string; mode: number }[];
  /** Files searched (relative paths). */
  scanned: string[];
  /** Which secret turned up where. */
  leaks: { path: string; secret: string }[];
}

export function isConfigFile(relativePath: string): boolean {
  const path = relativePath.split(sep).join('/');
  return CONFIG_FILES.some((pattern) => pattern.test(path));
}

/** Walks `dataDir`: config files are listed with their mode, every other file is searched. */
export function scanDataDir(dataDir: string, secrets: readonly Secret[]): ScanResult {
  const result: ScanResult = { configFiles: [], scanned: [], leaks: [] };
  for (const entry of readdirSync(dataDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const path = relative(dataDir, full);
    if (isConfigFile(path)) {
      result.configFiles.push({ path, mode: statSync(full).mode & 0o777 });
      continue;
    }
    result.scanned.push(path);
    const text = readFileSync(full).toString('latin1');
    for (const secret of secrets) {
      if (text.includes(secret.value)) result.leaks.push({ path, secret: secret.label });
    }
  }
  return result;
}
