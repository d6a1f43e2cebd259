import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from './config-file';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'config-file-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('writeConfigFile', () => {
  it('writes JSON readable only by the user, in a 0700 folder it creates', async () => {
    const dir = join(root, 'runtime');
    const path = await writeConfigFile(dir, 'tunnel', { secret: 'uuid' });
    expect(path).toBe(join(dir, 'tunnel.json'));
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ secret: 'uuid' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('replaces the previous file whole and leaves no temporary files', async () => {
    await writeConfigFile(root, 'prober.json', { n: 1 });
    const path = await writeConfigFile(root, 'prober.json', { n: 2 });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ n: 2 });
    expect(await readdir(root)).toEqual(['prober.json']);
  });

  it('refuses names that would leave the folder', async () => {
    await expect(writeConfigFile(root, '../escape', {})).rejects.toThrow('invalid config file name');
  });
});
