/**
 * `npm run cli -- connect` against the lab, as a user runs it: it prints the proxy addresses,
 * traffic flows through them, and SIGTERM (like Ctrl-C) disconnects and leaves no core behind.
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
  ipinfo: string;
  servers: { id: string; exitIp: string }[];
  zone: string;
  resolver: string;
}

// The lab as a user starts it (`npm run lab`): hosts do not import the test world.
let labProcess: ChildProcess;
let lab: LabLine;
let dataDir: string;

beforeAll(async () => {
  labProcess = spawn(process.execPath, ['--import', 'tsx', 'e2e/lab/main.ts', '--servers', '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
  lab = await new Promise<LabLine>((resolve, reject) => {
    let out = '';
    labProcess.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line) as LabLine);
    });
    labProcess.once('exit', (code) => reject(new Error(`the lab exited (${code})`)));
  });
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-cli-'));
});
afterAll(async () => {
  if (labProcess && labProcess.exitCode === null) {
    const gone = new Promise((r) => labProcess.once('exit', r));
    labProcess.kill('SIGTERM');
    await gone;
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('cli connect', () => {
  it('prints the proxy addresses, carries traffic, and disconnects cleanly on SIGTERM', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const subscription = lab.subscriptions[1]!;
    const cli = spawn(
      process.execPath,
      ['--import', 'tsx', 'main/cli/index.ts', 'connect', '--subscription', subscription.url, '--http-port', String(httpPort), '--socks-port', String(socksPort)],
      { env: { ...process.env, STEADFAST_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    cli.stdout!.on('data', (d) => (out += String(d)));
    cli.stderr!.on('data', (d) => (err += String(d)));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    try {
      expect(await waitUntil(() => out.includes('socks5://'), 30_000, 50), `${out}\n${err}`).toBe(true);
      const lines = out.split('\n');
      expect(lines).toContain(`http://127.0.0.1:${httpPort}`);
      expect(lines).toContain(`socks5://127.0.0.1:${socksPort}`);

      // Server ids are "<subscription><n>": the first of B is B1.
      const first = lab.servers.find((s) => s.id === `${subscription.id}1`)!;
      for (const proxy of [`http://127.0.0.1:${httpPort}`, `socks5://127.0.0.1:${socksPort}`]) {
        const agent = new ProxyAgent(proxy);
        const response = await request(lab.ipinfo, { dispatcher: agent, signal: AbortSignal.timeout(5000) });
        expect(JSON.parse(await response.body.text()).ip).toBe(first.exitIp);
        await agent.destroy();
      }
      const cores = processesOf('/usr/bin/v2ray', join(dataDir, 'runtime'));
      expect(cores).toHaveLength(1);

      cli.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('state: disconnected');
      expect(processesOf('/usr/bin/v2ray', join(dataDir, 'runtime'))).toEqual([]);
    } finally {
      cli.kill('SIGKILL');
    }
  });

  it('fails with a sentence when the subscription cannot be fetched', async () => {
    const cli = spawn(process.execPath, ['--import', 'tsx', 'main/cli/index.ts', 'connect', '--subscription', `${lab.control}/no-such-subscription`], {
      env: { ...process.env, STEADFAST_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    cli.stderr!.on('data', (d) => (err += String(d)));
    const code = await new Promise<number | null>((resolve) => cli.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(err).toMatch(/could not fetch the subscription/);
  });

  it('--routing FILE: the file’s rules apply (a blocked name fails, the rest goes through the server)', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const routingFile = join(dataDir, 'routing.json');
    const routing = { bypassLan: false, rules: [{ domain: [`full:ads.${lab.zone}`], outbound: 'block' }] };
    await writeFile(routingFile, JSON.stringify({ routing, dns: { remote: lab.resolver, domestic: lab.resolver } }));
    const subscription = lab.subscriptions[0]!;
    const args = ['connect', '--subscription', subscription.url, '--http-port', String(httpPort), '--socks-port', String(socksPort), '--routing', routingFile];
    const cli = spawn(process.execPath, ['--import', 'tsx', 'main/cli/index.ts', ...args], { env: { ...process.env, STEADFAST_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    cli.stdout!.on('data', (d) => (out += String(d)));
    cli.stderr!.on('data', (d) => (err += String(d)));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    try {
      expect(await waitUntil(() => out.includes('socks5://'), 30_000, 50), `${out}\n${err}`).toBe(true);
      expect(err).toContain('preset global, 1 rule(s) of your own, LAN through the server');
      const agent = new ProxyAgent(`http://127.0.0.1:${httpPort}`);
      try {
        const ipinfo = await request(lab.ipinfo, { dispatcher: agent, signal: AbortSignal.timeout(5000) });
        expect(JSON.parse(await ipinfo.body.text()).ip).toBe(lab.servers.find((s) => s.id === `${subscription.id}1`)!.exitIp);
        const blocked = await request(`http://ads.${lab.zone}/`, { dispatcher: agent, signal: AbortSignal.timeout(5000) }).then(
          () => null,
          (error: Error) => error,
        );
        expect(blocked?.name).not.toMatch(/Timeout|Abort/);
      } finally {
        await agent.destroy();
      }
      cli.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      cli.kill('SIGKILL');
    }
  });

  it('--routing FILE with an invalid entry: exit 2 naming it, no core started', async () => {
    const routingFile = join(dataDir, 'bad-routing.json');
    await writeFile(routingFile, JSON.stringify({ routing: { rules: [{ ip: ['10.0.0.0/40'], outbound: 'direct' }] } }));
    const cli = spawn(process.execPath, ['--import', 'tsx', 'main/cli/index.ts', 'connect', '--subscription', lab.subscriptions[0]!.url, '--routing', routingFile], {
      env: { ...process.env, STEADFAST_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    cli.stderr!.on('data', (d) => (err += String(d)));
    const code = await new Promise<number | null>((resolve) => cli.once('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('routing, rule 1, ip 1: "10.0.0.0/40" has a prefix length outside 0-32');
    expect(processesOf('/usr/bin/v2ray', join(dataDir, 'runtime'))).toEqual([]);
  });
});
