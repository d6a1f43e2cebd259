import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isConfigFile, scanDataDir, secretShapes } from './secrets';

const server = { id: 'A1', uuid: 'de712db6-0004-4671-83b2-6a55097127df', password: 'Xk2pQ9mTzR4vB7nH', ssMethod: 'aes-128-gcm' };

describe('the data-folder secret scan', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const folder = (files: Record<string, string>, modes: Record<string, number> = {}) => {
    dir = mkdtempSync(join(tmpdir(), 'steadfast-secrets-test-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
      chmodSync(join(dir, path), modes[path] ?? 0o644);
    }
    return dir;
  };

  it('finds a credential in any shape in any file but the config files', () => {
    const userInfo = Buffer.from(`${server.ssMethod}:${server.password}`).toString('base64url');
    const root = folder({
      'app.log': `INFO PROBER dialing ${server.uuid.toUpperCase()}\n`,
      'history/a.json': `{"id":"${server.uuid.replace(/-/g, '')}"}`,
      'monitor-cache.json': `ss://${userInfo}@127.0.0.1:1`,
      'auto.json': `{"note":"${server.password}"}`,
      'subscriptions.json': `{"uuid":"${server.uuid}"}`,
      'runtime/tunnel.json': `{"password":"${server.password}"}`,
    });
    const result = scanDataDir(root, secretShapes([server]));
    expect(result.leaks.map((l) => l.path).sort()).toEqual(['app.log', 'auto.json', 'history/a.json', 'monitor-cache.json']);
    expect(result.leaks.every((l) => !l.secret.includes(server.uuid) && !l.secret.includes(server.password))).toBe(true);
    expect(result.configFiles.map((f) => f.path).sort()).toEqual(['runtime/tunnel.json', 'subscriptions.json']);
  });

  it('reports each config file with its mode, so a 0644 config is caught', () => {
    const root = folder({ 'settings.json': '{}', 'subscriptions.json.bak': '{}' }, { 'settings.json': 0o600, 'subscriptions.json.bak': 0o644 });
    expect(scanDataDir(root, []).configFiles.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'settings.json', mode: 0o600 },
      { path: 'subscriptions.json.bak', mode: 0o644 },
    ]);
  });

  it('counts only the config files by their exact names as config', () => {
    expect(isConfigFile('subscriptions.json')).toBe(true);
    expect(isConfigFile('runtime/prober-1.json')).toBe(true);
    expect(isConfigFile('runtime/nested/x.json')).toBe(false);
    expect(isConfigFile('my-subscriptions.json')).toBe(false);
    expect(isConfigFile('app.log')).toBe(false);
  });
});
