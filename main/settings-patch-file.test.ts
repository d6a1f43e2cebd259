import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettingsFile, SETTINGS_FILE_MAX_BYTES } from './settings-patch-file';

const fileWith = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'settings-file-')), 'settings.json');
  writeFileSync(path, text);
  return path;
};

describe('--settings FILE', () => {
  it('reads a patch naming only what changes', async () => {
    const patch = await readSettingsFile(fileWith(JSON.stringify({ monitor: { transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}' }, stallThresholdMs: 3000 })));
    expect(patch).toEqual({ monitor: { transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}' }, stallThresholdMs: 3000 });
  });

  it('names every invalid field, an unknown one included', async () => {
    const path = fileWith(JSON.stringify({ monitor: { urls: ['file:///etc/passwd'] }, httpPort: 70000, colour: 'red' }));
    const error = await readSettingsFile(path).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/monitor\.urls\.0: must be an http\(s\) URL/);
    expect((error as Error).message).toMatch(/httpPort/);
    expect((error as Error).message).toMatch(/colour/);
  });

  it('refuses what is not JSON, a missing file and a huge file, saying which', async () => {
    await expect(readSettingsFile(fileWith('{ monitor: '))).rejects.toThrow(/is not JSON/);
    await expect(readSettingsFile('/nonexistent/settings.json')).rejects.toThrow(/cannot read the settings file .*ENOENT/);
    await expect(readSettingsFile(fileWith(' '.repeat(SETTINGS_FILE_MAX_BYTES + 1)))).rejects.toThrow(/at most 1 MB is read/);
  });
});
