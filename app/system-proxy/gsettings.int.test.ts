import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import { runChecked } from './command';
import { detectProxyBackends } from './detect';
import { execRunner } from './exec-runner';
import { GNOME_KEY_IDS } from './gnome';
import { applyThenCrash } from './testing/crashed-app';
import { type SessionBus, startSessionBus } from './testing/session-bus';
import { SystemProxy } from './system-proxy';

// The real thing on this machine: gsettings with the dconf backend on a private session bus, with a
// temporary HOME and XDG_CONFIG_HOME so the user's own settings are never read or written.

const root = mkdtempSync(join(tmpdir(), 'gsettings-proxy-'));
let bus: SessionBus;

async function startBus(): Promise<void> {
  bus = await startSessionBus(root);
  expect(bus.env.HOME).not.toBe(homedir());
  expect(bus.env.DBUS_SESSION_BUS_ADDRESS).not.toBe(process.env.DBUS_SESSION_BUS_ADDRESS);
}

const run = () => execRunner({ env: bus.env });

async function readAll(): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const id of GNOME_KEY_IDS) {
    const [schema, key] = id.split(' ') as [string, string];
    values[id] = (await runChecked(run(), { file: 'gsettings', args: ['get', schema, key] })).trim();
  }
  return values;
}

async function set(schema: string, key: string, value: string): Promise<void> {
  await runChecked(run(), { file: 'gsettings', args: ['set', schema, key, value] });
}

/** The user's own proxy: a corporate one with its exceptions. */
async function userSettings(): Promise<Record<string, string>> {
  await set('org.gnome.system.proxy.http', 'host', "'proxy.corp.example'");
  await set('org.gnome.system.proxy.http', 'port', '3128');
  await set('org.gnome.system.proxy.https', 'host', "'proxy.corp.example'");
  await set('org.gnome.system.proxy.https', 'port', '3129');
  await set('org.gnome.system.proxy', 'ignore-hosts', "['localhost', '*.corp.example', \"o'brien.lan\"]");
  await set('org.gnome.system.proxy', 'mode', "'manual'");
  return readAll();
}

async function systemProxy(statePath: string) {
  const backends = await detectProxyBackends(run(), 'linux', bus.env);
  const { logger, lines } = memoryLogger();
  return { proxy: new SystemProxy({ backends, run: run(), statePath, logger }), backends, lines };
}

const OURS = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };

beforeAll(startBus, 30_000);
afterEach(async () => {
  await set('org.gnome.system.proxy', 'mode', "'none'");
});
afterAll(async () => {
  await bus?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('GNOME system proxy, for real (gsettings + dconf on a private session bus)', () => {
  it('detects GSettings and nothing else on this machine', async () => {
    const { backends } = await systemProxy(join(root, 'detect.json'));
    expect(backends.map((b) => b.id)).toEqual(['gnome']);
  });

  it('set points every proxy at the app; restore gives back exactly what the user had', async () => {
    const before = await userSettings();
    const statePath = join(root, 'roundtrip.json');
    const { proxy } = await systemProxy(statePath);

    expect(await proxy.apply(OURS)).toEqual({ applied: ['gnome'], failed: [] });
    const during = await readAll();
    expect(during).toMatchObject({
      'org.gnome.system.proxy mode': "'manual'",
      'org.gnome.system.proxy.http host': "'127.0.0.1'",
      'org.gnome.system.proxy.http port': '10809',
      'org.gnome.system.proxy.https port': '10809',
      'org.gnome.system.proxy.socks port': '10808',
      'org.gnome.system.proxy ignore-hosts': "['localhost', '127.0.0.0/8', '::1']",
    });
    expect(existsSync(statePath)).toBe(true);

    expect(await proxy.restore()).toMatchObject({ restored: ['GNOME'], failed: [] });
    expect(await readAll()).toEqual(before);
    expect(existsSync(statePath)).toBe(false);
  });

  it('after a crash (the process killed while the proxy was set), the next run restores first', async () => {
    const before = await userSettings();
    const statePath = join(root, 'crash.json');
    expect(await applyThenCrash(bus.env, statePath, 10809)).toEqual({ applied: ['gnome'], failed: [] });

    // Left behind: the proxy still points at a dead app, and the saved file says what to put back.
    expect((await readAll())['org.gnome.system.proxy.http host']).toBe("'127.0.0.1'");
    expect(existsSync(statePath)).toBe(true);

    // The machine "restarts": a new session bus, the same dconf database on disk.
    await bus.stop();
    await startBus();
    expect((await readAll())['org.gnome.system.proxy.http host']).toBe("'127.0.0.1'");

    const { proxy, lines } = await systemProxy(statePath);
    expect(await proxy.recoverAfterCrash()).toMatchObject({ restored: ['GNOME'], failed: [] });
    expect(await readAll()).toEqual(before);
    expect(existsSync(statePath)).toBe(false);
    expect(lines.some((l) => l.includes('the last run did not restore the system proxy'))).toBe(true);
  });

  it('a proxy the user switched off by hand while connected stays off', async () => {
    await userSettings();
    const { proxy } = await systemProxy(join(root, 'user-changed.json'));
    await proxy.apply(OURS);
    await set('org.gnome.system.proxy', 'mode', "'none'");
    expect(await proxy.restore()).toMatchObject({ restored: [], leftAlone: ['GNOME'] });
    expect((await readAll())['org.gnome.system.proxy mode']).toBe("'none'");
  });
});
