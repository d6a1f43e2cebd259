/**
 * `npm run cli -- speedtest` against the lab: real v2ray servers behind fault relays that cap
 * their rate, the lab's /download as the file. The faster relay comes out faster, a refused
 * server fails without holding up the others, and the table lists them fastest first.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serversFromLinks } from '../../../app/tunnel/testing/lab-servers';
import { type InProcessLab, startLab } from '../../../e2e/lab';

let lab: InProcessLab;
const dir = mkdtempSync(join(tmpdir(), 'cli-speedtest-'));

beforeAll(async () => {
  lab = await startLab({ servers: 3, subscriptions: 1, latency: [5, 10] });
  const [slow, fast, refused] = lab.info.servers;
  await lab.setFault(slow!.id, { fault: 'throttle', bytesPerSecond: 150_000 });
  await lab.setFault(fast!.id, { fault: 'throttle', bytesPerSecond: 600_000 });
  await lab.setFault(refused!.id, { fault: 'refuse' });
}, 60_000);

afterAll(async () => {
  await lab?.stop();
});

const cli = (args: string[]) =>
  execa('npx', ['tsx', 'main/cli/index.ts', 'speedtest', ...args], {
    reject: false,
    cwd: join(import.meta.dirname, '../../..'),
    env: { STEADFAST_DATA_DIR: dir, PATH: process.env.PATH },
    timeout: 90_000,
  });

interface Line {
  name: string;
  ok: boolean;
  bytes: number;
  bytes_per_second: number | null;
  error: string | null;
}

describe('cli speedtest', () => {
  it('prints one JSON line per server and a table, fastest first, at the rates the relays allow', async () => {
    const { exitCode, stdout, stderr } = await cli(['--subscription', lab.info.subscriptions[0]!.url, '--bytes', '300000', '--parallel', '2', '--url', `${lab.info.download}?bytes={bytes}`, '--core', 'v2ray']);
    expect(exitCode, stderr).toBe(0);
    const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
    expect(lines, stdout).toHaveLength(3);
    const names = serversFromLinks(lab.info.servers.map((s) => s.shareLink)).map((s) => s.name);
    const [slow, fast, refused] = names.map((name) => lines.find((l) => l.name === name));
    expect(refused).toMatchObject({ ok: false, bytes_per_second: null });
    expect(slow).toMatchObject({ ok: true, bytes: 300_000 });
    expect(fast).toMatchObject({ ok: true, bytes: 300_000 });
    // The relays cap the rate each way; the figure lands near the cap (TCP buffers let the first burst through faster).
    expect(slow!.bytes_per_second!).toBeGreaterThan(100_000);
    expect(slow!.bytes_per_second!).toBeLessThan(300_000);
    expect(fast!.bytes_per_second!).toBeGreaterThan(2 * slow!.bytes_per_second!);
    const table = stdout.slice(stdout.indexOf('server')).split('\n');
    expect(table.findIndex((row) => row.startsWith(fast!.name))).toBeLessThan(table.findIndex((row) => row.startsWith(slow!.name)));
    expect(table.at(-1)).toBe('2 measured, 1 failed, 0 not tested');
  }, 120_000);

  it('tests only the servers named, and refuses a name it cannot find', async () => {
    const unknown = (await cli(['--subscription', lab.info.subscriptions[0]!.url, '--bytes', '65536', '--url', `${lab.info.download}?bytes={bytes}`, '--servers', 'nowhere', '--core', 'v2ray']));
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('no server "nowhere"');
    const bad = await cli(['--subscription', 'x', '--parallel', '0']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--parallel needs a whole number from 1 to 16');
  }, 60_000);
});
