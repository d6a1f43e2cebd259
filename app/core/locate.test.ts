import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateCore, locateCores } from './locate';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'locate-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function executable(path: string, mode = 0o755): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, mode);
  return path;
}

const linux = { platform: 'linux' as const, arch: 'x64' };

describe('locateCore', () => {
  it('prefers the setting over bundled and PATH', async () => {
    const setting = await executable(join(root, 'mine', 'xray'));
    await executable(join(root, 'res', 'core', 'linux-x64', 'xray'));
    await executable(join(root, 'bin', 'v2ray'));
    const found = await locateCore({ ...linux, settingPath: setting, resourcesDir: join(root, 'res'), env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ path: setting, source: 'setting' });
  });

  it('reports a setting that points nowhere instead of quietly using another core', async () => {
    await executable(join(root, 'bin', 'v2ray'));
    const found = await locateCore({ ...linux, settingPath: join(root, 'missing', 'xray'), env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ error: expect.stringContaining(join(root, 'missing', 'xray')) });
  });

  it('refuses a setting that is not executable', async () => {
    const notExec = await executable(join(root, 'mine', 'xray'), 0o644);
    const found = await locateCore({ ...linux, settingPath: notExec, env: { PATH: '' } });
    expect('error' in found).toBe(true);
  });

  it('uses the bundled core for this platform and arch before the same core on PATH', async () => {
    await executable(join(root, 'res', 'core', 'linux-arm64', 'xray'));
    const mine = await executable(join(root, 'res', 'core', 'linux-x64', 'xray'));
    await executable(join(root, 'bin', 'xray'));
    const found = await locateCore({ ...linux, resourcesDir: join(root, 'res'), env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ path: mine, source: 'bundled' });
  });

  it('makes Xray the main core wherever it is found, even with a bundled v2ray', async () => {
    await executable(join(root, 'res', 'core', 'linux-x64', 'v2ray'));
    const xray = await executable(join(root, 'bin', 'xray'));
    const found = await locateCore({ ...linux, resourcesDir: join(root, 'res'), env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ path: xray, source: 'path' });
  });

  it('takes a core by name from the setting: v2ray stays selectable beside a bundled Xray', async () => {
    await executable(join(root, 'res', 'core', 'linux-x64', 'xray'));
    const v2ray = await executable(join(root, 'bin', 'v2ray'));
    const found = await locateCore({ ...linux, settingPath: 'v2ray', resourcesDir: join(root, 'res'), env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ path: v2ray, source: 'setting' });
  });

  it('reports a core chosen by name that is not on the machine', async () => {
    await executable(join(root, 'bin', 'xray'));
    const found = await locateCore({ ...linux, settingPath: 'v2ray', env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ error: expect.stringContaining('(v2ray) was found neither bundled with the app nor on PATH') });
  });

  it('refuses sing-box chosen by name as the main core, saying which can be', async () => {
    await executable(join(root, 'bin', 'sing-box'));
    await executable(join(root, 'bin', 'xray'));
    const found = await locateCore({ ...linux, settingPath: 'sing-box', env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ error: expect.stringContaining('cannot be the main core') });
  });

  it('never makes sing-box the main core: alone, it is named in the error', async () => {
    await executable(join(root, 'bin', 'sing-box'));
    const found = await locateCore({ ...linux, env: { PATH: join(root, 'bin') } });
    expect(found).toEqual({ error: expect.stringMatching(/No core found.*only sing-box/) });
  });

  it('falls back to a bundled core directly under core/', async () => {
    const flat = await executable(join(root, 'res', 'core', 'xray'));
    const found = await locateCore({ ...linux, resourcesDir: join(root, 'res'), env: { PATH: '' } });
    expect(found).toEqual({ path: flat, source: 'bundled' });
  });

  it('searches PATH, preferring xray over v2ray over sing-box wherever they are', async () => {
    await executable(join(root, 'a', 'v2ray'));
    await executable(join(root, 'a', 'sing-box'));
    const xray = await executable(join(root, 'b', 'xray'));
    const found = await locateCore({ ...linux, resourcesDir: join(root, 'empty'), env: { PATH: `${join(root, 'a')}:${join(root, 'b')}` } });
    expect(found).toEqual({ path: xray, source: 'path' });
  });

  it('takes the first PATH entry holding the same core', async () => {
    const first = await executable(join(root, 'a', 'v2ray'));
    await executable(join(root, 'b', 'v2ray'));
    const found = await locateCore({ ...linux, env: { PATH: `${join(root, 'a')}:${join(root, 'b')}` } });
    expect(found).toEqual({ path: first, source: 'path' });
  });

  it('skips directories and non-executables named like a core', async () => {
    await mkdir(join(root, 'a', 'xray'), { recursive: true });
    await executable(join(root, 'a', 'v2ray'), 0o644);
    const found = await locateCore({ ...linux, env: { PATH: join(root, 'a') } });
    expect(found).toEqual({ error: expect.stringContaining('No core found') });
  });

  it('looks for .exe names and splits Path on ; for Windows', async () => {
    const exe = await executable(join(root, 'win', 'xray.exe'));
    const found = await locateCore({ platform: 'win32', arch: 'x64', env: { Path: `C:\\nowhere;${join(root, 'win')}` } });
    expect(found).toEqual({ path: exe, source: 'path' });
  });

  it('says what to install when nothing is found', async () => {
    const found = await locateCore({ ...linux, resourcesDir: join(root, 'res'), env: { PATH: join(root, 'none') } });
    expect(found).toEqual({ error: expect.stringMatching(/No core found.*apt install v2ray/) });
  });
});

describe('locateCores', () => {
  it('lists one place per core, bundled before PATH, in the preferred order', async () => {
    const singBox = await executable(join(root, 'res', 'core', 'linux-x64', 'sing-box'));
    const xray = await executable(join(root, 'res', 'core', 'linux-x64', 'xray'));
    await executable(join(root, 'bin', 'xray'));
    const v2ray = await executable(join(root, 'bin', 'v2ray'));
    const found = await locateCores({ ...linux, resourcesDir: join(root, 'res'), env: { PATH: join(root, 'bin') } });
    expect(found).toEqual([
      { name: 'xray', path: xray, source: 'bundled' },
      { name: 'v2ray', path: v2ray, source: 'path' },
      { name: 'sing-box', path: singBox, source: 'bundled' },
    ]);
  });

  it('is empty on a machine without cores', async () => {
    expect(await locateCores({ ...linux, resourcesDir: join(root, 'res'), env: { PATH: join(root, 'none') } })).toEqual([]);
  });
});
