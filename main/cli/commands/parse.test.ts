import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { startDeviceLimitedPanel } from '../../../app/subscriptions/testing/device-limited-panel';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const dataDir = mkdtempSync(join(tmpdir(), 'cli-parse-data-'));
const cli = (args: string[], input?: string) =>
  execa('npx', ['tsx', 'main/cli/index.ts', 'parse', ...args], {
    reject: false,
    input,
    cwd: join(import.meta.dirname, '../../..'),
    env: { STEADFAST_DATA_DIR: dataDir },
  });

describe('cli parse', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-parse-'));
  const file = join(dir, 'sub.txt');
  writeFileSync(file, Buffer.from([`vless://${UUID}@a.example.com:443?security=tls#A`, 'trojan://@b.example.com:443#B'].join('\r\n')).toString('base64'));

  it('prints format, servers (as parsed) and rejected entries as JSON, exit 0', async () => {
    const { exitCode, stdout } = await cli([file]);
    expect(exitCode).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.format).toBe('base64');
    expect(out.servers).toEqual([expect.objectContaining({ name: 'A', uuid: UUID })]);
    expect(out.rejected).toEqual([{ line: 2, reason: 'trojan: missing password', excerpt: 'trojan://@b.example.com:443#B' }]);
  }, 30_000);

  it('--redact masks credentials; "-" reads standard input', async () => {
    const { exitCode, stdout } = await cli(['-', '--redact'], `vless://${UUID}@a.example.com:443#A\n`);
    expect(exitCode).toBe(0);
    expect(stdout).not.toContain(UUID);
    expect(JSON.parse(stdout).servers[0].uuid).toBe('<redacted>');
  }, 30_000);

  it("prints the body's STATUS / REMARKS lines as info, not as rejected entries", async () => {
    const { exitCode, stdout } = await cli(['-'], ['REMARKS=My Provider', 'STATUS=🚀↑:1GB,↓:2GB,TOT:100GB💡Expires:N/A', `vless://${UUID}@a.example.com:443#A`].join('\n'));
    expect(exitCode).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.rejected).toEqual([]);
    expect(out.info).toEqual({ remarks: 'My Provider', usage: { upload: 1024 ** 3, download: 2 * 1024 ** 3, total: 100 * 1024 ** 3 } });
  }, 30_000);

  it('exits 1 with a sentence when the file cannot be read, 2 without an argument', async () => {
    const missing = await cli([join(dir, 'nope.txt')]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/could not read .*nope\.txt: no such file/);
    expect((await cli([])).exitCode).toBe(2);
  }, 30_000);

  it('asks a provider as the app does, so a panel that limits devices serves the servers, not "App not supported"', async () => {
    const panel = await startDeviceLimitedPanel(`vless://${UUID}@a.example.com:443#A\n`);
    try {
      const { exitCode, stdout } = await cli([panel.url]);
      expect(exitCode).toBe(0);
      const out = JSON.parse(stdout);
      expect(out.servers).toEqual([expect.objectContaining({ name: 'A', uuid: UUID })]);
      expect(out.rejected).toEqual([]);
      const { id } = JSON.parse(readFileSync(join(dataDir, 'cli', 'device-id.json'), 'utf8')) as { id: string };
      expect(panel.requests[0]).toMatchObject({ 'x-hwid': id, 'x-device-os': 'Linux' });
    } finally {
      await panel.stop();
    }
  }, 30_000);
});
