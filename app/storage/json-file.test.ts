import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FIRST_FORMAT_FROM_UNVERSIONED, type FileFormat } from './format';
import { JsonFile, SaveError } from './json-file';

const schema = z.object({ servers: z.array(z.string()) });
type Doc = z.infer<typeof schema>;

function fresh(mode?: number): { dir: string; file: JsonFile<Doc> } {
  const dir = mkdtempSync(join(tmpdir(), 'jsonfile-'));
  const file = new JsonFile<Doc>({ path: join(dir, 'doc.json'), schema, format: FIRST_FORMAT_FROM_UNVERSIONED, fallback: () => ({ servers: [] }), mode, now: () => 0 });
  return { dir, file };
}

describe('JsonFile', () => {
  it('starts from the fallback when there is no file, without complaint', async () => {
    const { file } = fresh();
    expect(await file.load()).toEqual({ value: { servers: [] }, source: 'default', problem: null, setAsideTo: null });
  });

  it('round-trips and writes with the requested mode', async () => {
    const { file } = fresh(0o600);
    await file.save({ servers: ['a'] });
    expect((await file.load()).value).toEqual({ servers: ['a'] });
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
  });

  it('sets a garbage file aside and falls back to the last good copy', async () => {
    const { dir, file } = fresh();
    await file.save({ servers: ['first'] });
    await file.save({ servers: ['second'] });
    writeFileSync(file.path, '{"servers": [tru');
    const result = await file.load();
    expect(result.value).toEqual({ servers: ['first'] });
    expect(result.source).toBe('backup');
    expect(result.problem?.detail).toMatch(/not valid JSON.*last good copy/);
    expect(readdirSync(dir).some((n) => n.startsWith('doc.json.corrupt-'))).toBe(true);
    expect(readFileSync(result.setAsideTo!, 'utf8')).toBe('{"servers": [tru');
  });

  it('treats valid JSON of the wrong shape as unreadable, and starts empty with no backup', async () => {
    const { file } = fresh();
    writeFileSync(file.path, '{"servers": 5}');
    const result = await file.load();
    expect(result.value).toEqual({ servers: [] });
    expect(result.problem?.detail).toMatch(/unexpected content at servers\); starting empty/);
  });

  it('names what its problem is about: the file and how the app recovered', async () => {
    const { file } = fresh();
    writeFileSync(file.path, '{"servers": 5}');
    const empty = (await file.load()).problem!;
    expect(empty.topic).toEqual({ kind: 'file-unreadable', file: basename(file.path), recovered: 'empty' });
    await file.save({ servers: [] });
    await file.save({ servers: [] });
    writeFileSync(file.path, '{"servers": [tru');
    const backup = (await file.load()).problem!;
    expect(backup.detail).toMatch(/the last good copy was used/);
    expect(backup.topic).toEqual({ kind: 'file-unreadable', file: basename(file.path), recovered: 'backup' });
  });

  it('a failed save names the file for the user', async () => {
    const { file } = fresh();
    mkdirSync(`${file.path}.tmp-${process.pid}`);
    const failure = await file.save({ servers: ['lost'] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SaveError);
    expect((failure as SaveError).problem).toEqual({
      topic: { kind: 'save-failed', file: 'doc.json' },
      detail: "Could not save doc.json (a folder is in the way). The app keeps working with what it has in memory; free some space or check the folder's permissions.",
    });
  });

  it('treats a truncated (empty) file as unreadable', async () => {
    const { file } = fresh();
    writeFileSync(file.path, '');
    expect((await file.load()).problem?.detail).toMatch(/the file is empty/);
  });

  it('a failed write rejects with the reason and keeps the last good file', async () => {
    const { file } = fresh();
    await file.save({ servers: ['kept'] });
    // A folder where the temporary file must go fails the write even for root.
    mkdirSync(`${file.path}.tmp-${process.pid}`);
    await expect(file.save({ servers: ['lost'] })).rejects.toThrow(/could not save .*a folder is in the way/);
    expect((await file.load()).value).toEqual({ servers: ['kept'] });
  });

  it('a folder that cannot be created is reported, not thrown raw', async () => {
    const { dir } = fresh();
    writeFileSync(join(dir, 'blocker'), 'x');
    const blocked = new JsonFile<Doc>({ path: join(dir, 'blocker', 'doc.json'), schema, format: FIRST_FORMAT_FROM_UNVERSIONED, fallback: () => ({ servers: [] }) });
    await expect(blocked.save({ servers: ['x'] })).rejects.toThrow(/could not save/);
  });

  it('applies concurrent saves in call order', async () => {
    const { file } = fresh();
    await Promise.all([file.save({ servers: ['1'] }), file.save({ servers: ['2'] }), file.save({ servers: ['3'] })]);
    expect((await file.load()).value).toEqual({ servers: ['3'] });
  });

  it('creates missing folders', async () => {
    const { dir } = fresh();
    mkdirSync(join(dir, 'x'));
    const nested = new JsonFile<Doc>({ path: join(dir, 'x', 'y', 'doc.json'), schema, format: FIRST_FORMAT_FROM_UNVERSIONED, fallback: () => ({ servers: [] }) });
    await nested.save({ servers: ['n'] });
    expect((await nested.load()).value).toEqual({ servers: ['n'] });
  });

  it('removes the temporary files of writers that died mid-save, not those of live ones', async () => {
    const { dir, file } = fresh();
    await file.save({ servers: ['a'] });
    writeFileSync(join(dir, 'doc.json.tmp-999999'), '{"servers": [');
    writeFileSync(join(dir, `doc.json.tmp-${process.ppid}`), 'being written');
    writeFileSync(join(dir, 'other.json.tmp-999999'), 'not ours');
    expect((await file.load()).value).toEqual({ servers: ['a'] });
    expect(readdirSync(dir).sort()).toEqual(['doc.json', `doc.json.tmp-${process.ppid}`, 'other.json.tmp-999999']);
  });

  describe('formats and migrations', () => {
    // Version 2 renamed `hosts` (version 1) to `servers`; version 1 files of older releases had no version.
    const renamed: FileFormat = {
      version: 2,
      migrations: { 1: (unversioned) => unversioned, 2: ({ hosts, ...rest }) => ({ ...rest, servers: hosts }) },
    };
    const versioned = z.object({ version: z.literal(2), servers: z.array(z.string()) });
    const open = (dir: string) =>
      new JsonFile({ path: join(dir, 'doc.json'), schema: versioned, format: renamed, fallback: () => ({ version: 2 as const, servers: [] }), now: () => 0 });

    it('writes the version beside the fields', async () => {
      const { file } = fresh();
      await file.save({ servers: ['a'] });
      expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ version: 1, servers: ['a'] });
    });

    it('brings an older file up through every step, and the next save writes the new format', async () => {
      const { dir } = fresh();
      writeFileSync(join(dir, 'doc.json'), JSON.stringify({ hosts: ['old'] }));
      const file = open(dir);
      const loaded = await file.load();
      expect(loaded).toEqual({ value: { version: 2, servers: ['old'] }, source: 'file', problem: null, setAsideTo: null });
      await file.save(loaded.value);
      expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ version: 2, servers: ['old'] });
      // The copy kept as .bak is the old format's file, still readable through the chain.
      rmSync(file.path);
      expect((await open(dir).load()).value).toEqual({ version: 2, servers: ['old'] });
    });

    it('sets a file of a newer release aside, never reading it as something else', async () => {
      const { dir } = fresh();
      writeFileSync(join(dir, 'doc.json'), JSON.stringify({ version: 3, servers: ['future'] }));
      const loaded = await open(dir).load();
      expect(loaded.value).toEqual({ version: 2, servers: [] });
      expect(loaded.problem?.detail).toMatch(/written by a newer version of the app \(format 3; this one reads up to 2\)/);
      expect(readFileSync(loaded.setAsideTo!, 'utf8')).toContain('future');
    });

    it('a migration that fails sets the file aside instead of losing it', async () => {
      const { dir } = fresh();
      const broken: FileFormat = { version: 2, migrations: { 2: () => { throw new Error('no hosts'); } } };
      writeFileSync(join(dir, 'doc.json'), JSON.stringify({ version: 1, hosts: 5 }));
      const file = new JsonFile({ path: join(dir, 'doc.json'), schema: versioned, format: broken, fallback: () => ({ version: 2 as const, servers: [] }) });
      const loaded = await file.load();
      expect(loaded.problem?.detail).toMatch(/could not bring it from format 1 to 2 \(no hosts\)/);
      expect(readFileSync(loaded.setAsideTo!, 'utf8')).toContain('hosts');
    });
  });
});
