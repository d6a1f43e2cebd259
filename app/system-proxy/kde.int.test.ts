import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import { runChecked } from './command';
import { detectProxyBackends } from './detect';
import { execRunner } from './exec-runner';
import { KDE_KEYS } from './kde';
import { applyThenCrash } from './testing/crashed-app';
import { type SessionBus, startSessionBus } from './testing/session-bus';
import { SystemProxy } from './system-proxy';

// The real thing on this machine: KDE's own kwriteconfig5 / kreadconfig5 on kioslaverc, inside a
// Plasma-like session (XDG_CURRENT_DESKTOP=KDE) with a private session bus for the reload signal and
// a temporary HOME and XDG_CONFIG_HOME, so the user's own settings are never read or written.

const root = mkdtempSync(join(tmpdir(), 'kde-proxy-'));
let bus: SessionBus;

async function startBus(): Promise<void> {
  bus = await startSessionBus(root);
  bus.env.XDG_CURRENT_DESKTOP = 'KDE';
  expect(bus.env.HOME).not.toBe(homedir());
}

const run = () => execRunner({ env: bus.env });
const kioslaverc = () => join(bus.env.XDG_CONFIG_HOME as string, 'kioslaverc');

async function readAll(): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const key of KDE_KEYS) {
    values[key] = (await runChecked(run(), { file: 'kreadconfig5', args: ['--file', 'kioslaverc', '--group', 'Proxy Settings', '--key', key] })).trim();
  }
  return values;
}

async function write(key: string, value: string): Promise<void> {
  await runChecked(run(), { file: 'kwriteconfig5', args: ['--file', 'kioslaverc', '--group', 'Proxy Settings', '--key', key, value] });
}

/** The user's own proxy, as KDE's settings page writes it: a corporate one with its exceptions. */
async function userSettings(): Promise<Record<string, string>> {
  await write('httpProxy', 'http://proxy.corp.example 3128');
  await write('httpsProxy', 'http://proxy.corp.example 3129');
  await write('NoProxyFor', 'localhost,.corp.example');
  await write('ProxyType', '1');
  return readAll();
}

/** The app's system proxy as it runs in this session: every backend found (GSettings is installed here too). */
async function systemProxy(statePath: string) {
  const backends = await detectProxyBackends(run(), 'linux', bus.env);
  const { logger, lines } = memoryLogger();
  return { proxy: new SystemProxy({ backends, run: run(), statePath, logger }), backends, lines };
}

const OURS = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };

beforeAll(startBus, 30_000);
beforeEach(() => rmSync(kioslaverc(), { force: true }));
afterAll(async () => {
  await bus?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('KDE system proxy, for real (kwriteconfig5 / kreadconfig5 on kioslaverc)', () => {
  it('is found inside a Plasma session, with the kconfig tools this machine has', async () => {
    const { backends } = await systemProxy(join(root, 'detect.json'));
    expect(backends.map((b) => b.id)).toContain('kde');
  });

  it('set points every proxy at the app in the form KDE writes; restore gives back exactly what the user had', async () => {
    const before = await userSettings();
    const statePath = join(root, 'roundtrip.json');
    const { proxy } = await systemProxy(statePath);

    expect(await proxy.apply(OURS)).toMatchObject({ applied: expect.arrayContaining(['kde']), failed: [] });
    expect(await readAll()).toEqual({
      ProxyType: '1',
      httpProxy: 'http://127.0.0.1 10809',
      httpsProxy: 'http://127.0.0.1 10809',
      socksProxy: 'socks://127.0.0.1 10808',
      NoProxyFor: 'localhost,127.0.0.0/8,::1',
    });
    // The file itself, as KDE's KIO reads it: one group, the keys as written.
    expect(readFileSync(kioslaverc(), 'utf8')).toContain('[Proxy Settings]\n');
    expect(existsSync(statePath)).toBe(true);

    expect(await proxy.restore()).toMatchObject({ restored: expect.arrayContaining(['KDE']), failed: [] });
    expect(await readAll()).toEqual(before);
    expect(existsSync(statePath)).toBe(false);
  });

  it('a user with no proxy at all gets no proxy back, not empty manual entries', async () => {
    const before = await readAll();
    const { proxy } = await systemProxy(join(root, 'none.json'));
    await proxy.apply(OURS);
    await proxy.restore();
    expect(await readAll()).toEqual(before);
    expect(readFileSync(kioslaverc(), 'utf8')).not.toMatch(/httpProxy=/);
  });

  it('after a crash (the process killed while the proxy was set), the next run restores first', async () => {
    const before = await userSettings();
    const statePath = join(root, 'crash.json');
    expect((await applyThenCrash(bus.env, statePath, 10809)).applied).toContain('kde');
    expect((await readAll()).httpProxy).toBe('http://127.0.0.1 10809');

    const { proxy, lines } = await systemProxy(statePath);
    expect(await proxy.recoverAfterCrash()).toMatchObject({ restored: expect.arrayContaining(['KDE']), failed: [] });
    expect(await readAll()).toEqual(before);
    expect(existsSync(statePath)).toBe(false);
    expect(lines.some((l) => l.includes('the last run did not restore the system proxy'))).toBe(true);
  });

  it('a proxy the user switched off by hand while connected stays off', async () => {
    await userSettings();
    const { proxy } = await systemProxy(join(root, 'user-changed.json'));
    await proxy.apply(OURS);
    await write('ProxyType', '0');
    expect(await proxy.restore()).toMatchObject({ leftAlone: expect.arrayContaining(['KDE']) });
    expect((await readAll()).ProxyType).toBe('0');
  });
});
