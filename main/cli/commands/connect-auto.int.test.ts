/**
 * `npm run cli -- connect --auto` against the lab, as a user runs it: the whole engine without a
 * UI. It prints the proxy addresses; when the server carrying the traffic goes silent it prints
 * Auto's decisions as AUTO lines and traffic flows again through another server; SIGTERM stops
 * it with no core left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../../app/tunnel/ports';
import { processesOf, waitUntil } from '../../../app/tunnel/testing/processes';

interface LabLine {
  control: string;
  subscriptions: { id: string; url: string }[];
  target: string;
  ipinfoUrls: Record<string, string>;
  bytes: string;
  servers: { id: string; exitIp: string }[];
  resolver: string;
}

let labProcess: ChildProcess;
let lab: LabLine;
let dataDir: string;

beforeAll(async () => {
  labProcess = spawn(process.execPath, ['--import', 'tsx', 'e2e/lab/main.ts', '--servers', '6', '--subscriptions', '2', '--latency', '20-60'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  lab = await new Promise<LabLine>((resolve, reject) => {
    let out = '';
    labProcess.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line) as LabLine);
    });
    labProcess.once('exit', (code) => reject(new Error(`the lab exited (${code})`)));
  });
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-cli-auto-'));
});

afterAll(async () => {
  if (labProcess && labProcess.exitCode === null) {
    const gone = new Promise((r) => labProcess.once('exit', r));
    labProcess.kill('SIGTERM');
    await gone;
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function exitIpVia(proxy: string): Promise<string | null> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(lab.ipinfoUrls['api.country.is']!, { dispatcher: agent, signal: AbortSignal.timeout(1500) });
    return (JSON.parse(await response.body.text()) as { ip: string }).ip;
  } catch {
    return null;
  } finally {
    void agent.destroy().catch(() => undefined);
  }
}

async function setFault(id: string, fault: string): Promise<void> {
  const response = await request(`${lab.control}/servers/${id}`, { method: 'POST', body: JSON.stringify({ fault }), headers: { 'content-type': 'application/json' } });
  expect(response.statusCode).toBe(200);
  await response.body.dump();
}

describe('cli connect --auto', () => {
  it('runs Auto headless: proxy addresses, AUTO lines on a dead server, a clean stop', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const proxy = `http://127.0.0.1:${httpPort}`;
    const args = ['connect', '--auto', ...lab.subscriptions.flatMap((s) => ['--subscription', s.url])];
    // The lab is on loopback, which the default bypassLan would send past the servers.
    const routingFile = join(dataDir, 'lab-routing.json');
    await writeFile(routingFile, JSON.stringify({ routing: { bypassLan: false }, dns: { remote: lab.resolver, domestic: lab.resolver } }));
    // Every lookup the monitor makes goes to the lab's stand-ins, never to a public service.
    const settingsFile = join(dataDir, 'lab-settings.json');
    await writeFile(settingsFile, JSON.stringify({ monitor: { ipInfoUrls: lab.ipinfoUrls, transferTestUrl: `${lab.bytes}/{bytes}` } }));
    args.push('--test-url', lab.target, '--data-dir', dataDir, '--http-port', String(httpPort), '--socks-port', String(socksPort), '--routing', routingFile, '--settings', settingsFile);
    const cli = spawn(process.execPath, ['--import', 'tsx', 'main/cli/index.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    cli.stdout!.on('data', (d) => (out += String(d)));
    cli.stderr!.on('data', (d) => (err += String(d)));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    try {
      expect(await waitUntil(() => out.includes('socks5://'), 30_000, 50), `${out}\n${err}`).toBe(true);
      expect(out.split('\n')).toEqual(expect.arrayContaining([proxy, `socks5://127.0.0.1:${socksPort}`]));
      expect(out).toMatch(/subscription .*: 3 server\(s\)\n.*subscription .*: 3 server\(s\)/s);

      const before = await exitIpVia(proxy);
      const current = lab.servers.find((s) => s.exitIp === before);
      expect(current, `no lab server exits at ${before}`).toBeDefined();
      await setFault(current!.id, 'blackhole');

      // A user keeps using the connection: Auto notices the stall and moves on.
      let after: string | null = null;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        after = await exitIpVia(proxy);
        if (after && after !== before) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(after).not.toBe(before);
      expect(lab.servers.map((s) => s.exitIp)).toContain(after);
      expect(out).toMatch(/ INFO AUTO check \(stall\)/);
      expect(out).toMatch(/ INFO AUTO switch .* current-silent/);
      // No credentials on the terminal either.
      expect(out + err).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
      await setFault(current!.id, 'none');

      cli.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('SIGTERM: disconnecting');
      expect(await waitUntil(() => processesOf('/usr/bin/v2ray', join(dataDir, 'runtime')).length === 0, 5000, 100)).toBe(true);
    } finally {
      if (cli.exitCode === null) cli.kill('SIGKILL');
    }
  }, 90_000);
});
