import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../args';
import { readHeadlessArgs } from './options';

const fileWith = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'headless-settings-')), 'settings.json');
  writeFileSync(path, text);
  return path;
};

describe('the headless host’s --settings FILE', () => {
  it('hands the file’s patch to the engine: the transfer test downloads from the lab’s /bytes/N', async () => {
    const path = fileWith(JSON.stringify({ monitor: { transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}', intervalMs: 2000 } }));
    const args = await readHeadlessArgs(['--settings', path, '--port', '0']);
    expect(args.settingsOverrides).toEqual({ monitor: { transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}', intervalMs: 2000 } });
  });

  it('lets --test-url win over the file’s test URLs and keeps the rest of the file', async () => {
    const path = fileWith(JSON.stringify({ monitor: { urls: ['http://127.0.0.1:9/from-file'], transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}' } }));
    const args = await readHeadlessArgs(['--settings', path, '--test-url', 'http://127.0.0.1:9/generate_204']);
    expect(args.settingsOverrides?.monitor).toEqual({ urls: ['http://127.0.0.1:9/generate_204'], transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}' });
  });

  it('changes nothing when neither is given', async () => {
    expect((await readHeadlessArgs([])).settingsOverrides).toBeUndefined();
    expect((await readHeadlessArgs(['--test-url', 'http://127.0.0.1:9/generate_204'])).settingsOverrides).toEqual({ monitor: { urls: ['http://127.0.0.1:9/generate_204'] } });
  });

  it('refuses an invalid or unreadable file as a usage error naming the field', async () => {
    const bad = fileWith(JSON.stringify({ monitor: { transferTestUrl: 'http://127.0.0.1:9/bytes' } }));
    const error = await readHeadlessArgs(['--settings', bad]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/monitor\.transferTestUrl: must contain \{bytes\}/);
    await expect(readHeadlessArgs(['--settings', '/nonexistent/settings.json'])).rejects.toThrow(/cannot read the settings file .*ENOENT/);
    await expect(readHeadlessArgs(['--settings'])).rejects.toThrow(/--settings needs a value/);
  });

  it('--core chooses the main core for the start, over the file’s corePath; sing-box or a misspelt name is refused', async () => {
    const path = fileWith(JSON.stringify({ corePath: '/opt/xray/xray' }));
    expect((await readHeadlessArgs(['--settings', path])).settingsOverrides).toEqual({ corePath: '/opt/xray/xray' });
    expect((await readHeadlessArgs(['--settings', path, '--core', 'v2ray'])).settingsOverrides).toEqual({ corePath: 'v2ray' });
    expect((await readHeadlessArgs(['--core', '/usr/bin/v2ray'])).settingsOverrides).toEqual({ corePath: '/usr/bin/v2ray' });
    await expect(readHeadlessArgs(['--core', 'sing-box'])).rejects.toThrow(/sing-box carries servers beside a main core/);
    await expect(readHeadlessArgs(['--core', 'xrya'])).rejects.toThrow('--core is xray, v2ray or the path of a core program, got "xrya"');
  });
});
