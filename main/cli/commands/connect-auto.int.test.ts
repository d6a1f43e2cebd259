/**
 * `npm run cli -- connect --auto` against the lab, as a user runs it: the whole engine without a
 * UI. It prints the proxy addresses; when the server carrying the traffic goes silent it prints
 * Auto's decisions as AUTO lines and traffic flows again through another server; SIGTERM stops
 * it with no core left behind.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../../app/tunnel/ports';
import { processesOf, waitUntil } from '../../../app/tunnel/testing/processes';
import { type Lab, spawnLab } from '../../../e2e/lab';
import { runEntry } from '../../testing/entry-run';

let lab: Lab & { pid: number };
let dataDir: string;

beforeAll(async () => {
  lab = await spawnLab(['--servers', '6', '--subscriptions', '2', '--latency', '20-60']);
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-cli-auto-'));
});

afterAll(async () => {
  await lab?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function exitIpVia(proxy: string): Promise<string | null> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(lab.info.ipinfoUrls['api.country.is']!, { dispatcher: agent, signal: AbortSignal.timeout(1500) });
    return (JSON.parse(await response.body.text()) as { ip: string }).ip;
  } catch {
    return null;
  } finally {
    void agent.destroy().catch(() => undefined);
  }
}

describe('cli connect --auto', () => {
  it('runs Auto headless: proxy addresses, AUTO lines on a dead server, a clean stop', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const proxy = `http://127.0.0.1:${httpPort}`;
    const args = ['connect', '--auto', ...lab.info.subscriptions.flatMap((s) => ['--subscription', s.url])];
    // The lab is on loopback, which the default bypassLan would send past the servers.
    const routingFile = join(dataDir, 'lab-routing.json');
    await writeFile(routingFile, JSON.stringify({ routing: { bypassLan: false }, dns: { remote: lab.info.resolver, domestic: lab.info.resolver } }));
    // Every lookup the monitor makes goes to the lab's stand-ins, never to a public service.
    const settingsFile = join(dataDir, 'lab-settings.json');
    await writeFile(settingsFile, JSON.stringify({ monitor: { ipInfoUrls: lab.info.ipinfoUrls, transferTestUrl: `${lab.info.bytes}/{bytes}` } }));
    args.push('--test-url', lab.info.target, '--data-dir', dataDir, '--http-port', String(httpPort), '--socks-port', String(socksPort), '--routing', routingFile, '--settings', settingsFile);
    const cli = runEntry('main/cli/index.ts', args);
    const out = cli.out;
    try {
      expect(await waitUntil(() => out().includes('socks5://'), 30_000, 50), `${out()}\n${cli.err()}`).toBe(true);
      expect(out().split('\n')).toEqual(expect.arrayContaining([proxy, `socks5://127.0.0.1:${socksPort}`]));
      expect(out()).toMatch(/subscription .*: 3 server\(s\)\n.*subscription .*: 3 server\(s\)/s);

      const before = await exitIpVia(proxy);
      const current = lab.info.servers.find((s) => s.exitIp === before);
      expect(current, `no lab server exits at ${before}`).toBeDefined();
      await lab.setFault(current!.id, { fault: 'blackhole' });

      // A user keeps using the connection: Auto notices the stall and moves on.
      let after: string | null = null;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        after = await exitIpVia(proxy);
        if (after && after !== before) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(after).not.toBe(before);
      expect(lab.info.servers.map((s) => s.exitIp)).toContain(after);
      expect(out()).toMatch(/ INFO AUTO check \(stall\)/);
      expect(out()).toMatch(/ INFO AUTO switch .* current-silent/);
      // No credentials on the terminal either.
      expect(out() + cli.err()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
      await lab.setFault(current!.id, { fault: 'none' });

      cli.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(out()).toContain('SIGTERM: disconnecting');
      expect(await waitUntil(() => processesOf('/usr/bin/v2ray', join(dataDir, 'runtime')).length === 0, 5000, 100)).toBe(true);
    } finally {
      cli.kill();
    }
  }, 90_000);
});
