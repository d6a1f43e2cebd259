import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StaticFiles } from './static-files';

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'static-files-'));
}

describe('the renderer’s files in memory', () => {
  it('serves a file’s bytes, and its new bytes once it is rebuilt', () => {
    const dir = folder();
    const path = join(dir, 'app.js');
    writeFileSync(path, 'console.log(1)');
    const files = new StaticFiles();
    expect(String(files.get(path)?.body)).toBe('console.log(1)');
    writeFileSync(path, 'console.log(22)');
    expect(String(files.get(path)?.body)).toBe('console.log(22)');
    // Same size, newer time: a rebuild too.
    writeFileSync(path, 'console.log(33)');
    const later = new Date(Date.now() + 5000);
    utimesSync(path, later, later);
    expect(String(files.get(path)?.body)).toBe('console.log(33)');
    expect(files.bytes()).toBe('console.log(33)'.length);
  });

  it('has nothing for a missing file or a folder', () => {
    const dir = folder();
    const files = new StaticFiles();
    expect(files.get(join(dir, 'missing.js'))).toBeNull();
    expect(files.get(dir)).toBeNull();
  });

  it('keeps no font, no file over the size limit, and no more than the total, and says how big each is for streaming', () => {
    const dir = folder();
    writeFileSync(join(dir, 'big.js'), Buffer.alloc(2000));
    writeFileSync(join(dir, 'small.woff2'), Buffer.alloc(10));
    writeFileSync(join(dir, 'a.js'), Buffer.alloc(600));
    writeFileSync(join(dir, 'b.js'), Buffer.alloc(600));
    const files = new StaticFiles(1000, 1000);
    expect(files.get(join(dir, 'big.js'))).toEqual({ body: null, size: 2000 });
    expect(files.get(join(dir, 'small.woff2'))).toEqual({ body: null, size: 10 });
    expect(files.get(join(dir, 'a.js'))?.body?.length).toBe(600);
    expect(files.get(join(dir, 'b.js'))).toEqual({ body: null, size: 600 });
    expect(files.bytes()).toBe(600);
  });
});
