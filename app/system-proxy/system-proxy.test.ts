import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../shared/domain/problem';
import { memoryLogger } from '../log/logger';
import type { ProxyBackend } from './backend';
import type { CommandRunner } from './command';
import { kdeBackend } from './kde';
import { SystemProxy } from './system-proxy';
import { FakeKConfig } from './testing/fake-kconfig';
import { FakeRegistry } from './testing/fake-registry';
import { windowsBackend } from './windows';

const target = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };
const USER = { ProxyEnable: 1, ProxyServer: 'corp:3128', ProxyOverride: '<local>' };

function world(registry = new FakeRegistry(USER), dir = mkdtempSync(join(tmpdir(), 'sysproxy-'))) {
  const { logger, lines } = memoryLogger();
  const statePath = join(dir, 'system-proxy.json');
  const make = (run: CommandRunner = registry.run) =>
    new SystemProxy({ backends: [windowsBackend() as ProxyBackend<unknown>], run, statePath, logger, now: () => 1_700_000_000_000 });
  return { registry, statePath, lines, dir, make };
}

const values = (r: FakeRegistry) => Object.fromEntries([...r.values].map(([k, v]) => [k, v.data]));

describe('SystemProxy: the user’s settings are saved before the first change and put back', () => {
  it('saves the previous settings (0600) before changing anything, and deletes the file after restoring', async () => {
    const w = world();
    // Whether the file existed when the registry was first written to.
    const fileAtFirstWrite: boolean[] = [];
    const proxy = w.make(async (cmd) => {
      if (cmd.args[0] === 'add' && fileAtFirstWrite.length === 0) fileAtFirstWrite.push(existsSync(w.statePath));
      return w.registry.run(cmd);
    });
    await proxy.apply(target);
    expect(proxy.isApplied).toBe(true);
    expect(fileAtFirstWrite).toEqual([true]);
    const saved = JSON.parse(readFileSync(w.statePath, 'utf8'));
    expect(saved.entries).toEqual([{ backend: 'windows', previous: { ProxyEnable: 1, ProxyServer: 'corp:3128', ProxyOverride: '<local>', AutoConfigURL: null } }]);
    expect(statSync(w.statePath).mode & 0o777).toBe(0o600);

    await proxy.restore();
    expect(values(w.registry)).toEqual(USER);
    expect(existsSync(w.statePath)).toBe(false);
    expect(existsSync(`${w.statePath}.bak`)).toBe(false);
    expect(proxy.isApplied).toBe(false);
  });

  it('when the previous settings cannot be saved, nothing is changed and the failure goes to the problem sink', async () => {
    const w = world();
    const raised: Problem[] = [];
    // A file where the data folder should be.
    const notAFolder = join(w.dir, 'data');
    writeFileSync(notAFolder, 'a file');
    const statePath = join(notAFolder, 'system-proxy.json');
    const proxy = new SystemProxy({ backends: [windowsBackend() as ProxyBackend<unknown>], run: w.registry.run, statePath, logger: memoryLogger().logger, problems: { raise: (problem) => raised.push(problem) } });
    await expect(proxy.apply(target)).rejects.toThrow(/could not save .*system-proxy\.json/);
    expect(values(w.registry)).toEqual(USER);
    expect(raised.map((p) => p.topic)).toEqual([{ kind: 'save-failed', file: 'system-proxy.json' }]);
  });

  it('applying again (a new port) keeps the original snapshot instead of saving its own settings as the user’s', async () => {
    const w = world();
    const proxy = w.make();
    await proxy.apply(target);
    await proxy.apply({ ...target, httpPort: 20809 });
    expect(w.registry.get('ProxyServer')).toBe('127.0.0.1:20809');
    await proxy.restore();
    expect(values(w.registry)).toEqual(USER);
  });

  it('after a crash (no restore), the next start restores first', async () => {
    const w = world();
    await w.make().apply(target);
    // The process dies here: nothing restores. A new run on the same data folder:
    expect(w.registry.get('ProxyServer')).toBe('127.0.0.1:10809');
    const next = w.make();
    const summary = await next.recoverAfterCrash();
    expect(summary).toMatchObject({ restored: ['Windows'], failed: [] });
    expect(values(w.registry)).toEqual(USER);
    expect(existsSync(w.statePath)).toBe(false);
    expect(w.lines.some((l) => /the last run did not restore the system proxy/.test(l))).toBe(true);
    // And a clean start has nothing to do.
    expect(await w.make().recoverAfterCrash()).toBeNull();
  });

  it('after a crash, settings the user changed by hand since are kept', async () => {
    const w = world();
    await w.make().apply(target);
    w.registry.values.set('ProxyEnable', { type: 'REG_DWORD', data: 0 });
    const summary = await w.make().recoverAfterCrash();
    expect(summary).toMatchObject({ restored: [], leftAlone: ['Windows'] });
    expect(w.registry.get('ProxyEnable')).toBe(0);
    expect(existsSync(w.statePath)).toBe(false);
  });

  it('a restore that fails keeps the saved settings for the next attempt', async () => {
    const w = world();
    await w.make().apply(target);
    const denied = w.make(async (cmd) => (cmd.args[0] === 'add' ? { code: 1, stdout: '', stderr: 'ERROR: Access is denied.' } : w.registry.run(cmd)));
    const summary = await denied.recoverAfterCrash();
    expect(summary!.failed).toEqual([{ backend: 'windows', error: expect.stringMatching(/Access is denied/) }]);
    expect(existsSync(w.statePath)).toBe(true);
    expect(await w.make().recoverAfterCrash()).toMatchObject({ restored: ['Windows'] });
    expect(values(w.registry)).toEqual(USER);
  });

  it('a garbled saved file is set aside and reported; nothing is changed on its word', async () => {
    const w = world();
    writeFileSync(w.statePath, '{"version":1,"entries":');
    const before = values(w.registry);
    expect(await w.make().recoverAfterCrash()).toBeNull();
    expect(values(w.registry)).toEqual(before);
    expect(w.lines.some((l) => /could not be read back/.test(l))).toBe(true);
  });

  it('with two backends, one that cannot be read is left untouched and the other still works', async () => {
    const registry = new FakeRegistry(USER);
    const kconfig = new FakeKConfig({ ProxyType: '0' });
    const { logger, lines } = memoryLogger();
    const run = async (cmd: { file: string; args: string[] }) => (cmd.file === 'reg' ? registry.run(cmd) : { code: null, stdout: '', stderr: 'kreadconfig5: not found' });
    const proxy = new SystemProxy({
      backends: [windowsBackend() as ProxyBackend<unknown>, kdeBackend(5) as ProxyBackend<unknown>],
      run,
      statePath: join(mkdtempSync(join(tmpdir(), 'sysproxy-')), 's.json'),
      logger,
    });
    expect(await proxy.apply(target)).toEqual({ applied: ['windows'], failed: [] });
    expect(kconfig.commands).toEqual([]);
    expect(lines.some((l) => /could not read the kde proxy settings, leaving them untouched/.test(l))).toBe(true);
    await proxy.restore();
    expect(values(registry)).toEqual(USER);
  });

  it('operations run in call order: connect, disconnect, connect quickly ends applied', async () => {
    const w = world();
    const proxy = w.make();
    await Promise.all([proxy.apply(target), proxy.restore(), proxy.apply(target)]);
    expect(w.registry.get('ProxyServer')).toBe('127.0.0.1:10809');
    await proxy.restore();
    expect(values(w.registry)).toEqual(USER);
  });
});
