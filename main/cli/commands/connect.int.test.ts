/**
 * `npm run cli -- connect` against the lab, as a user runs it: it prints the proxy addresses,
 * traffic flows through them, and SIGTERM (like Ctrl-C) disconnects and leaves no core behind.
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
import { labCore } from '../../../app/core/testing/cores';

/** Xray is the main core wherever it is found: setup bundles it in the repository's resources. */
const MAIN_CORE = labCore('xray');

// The lab as a user starts it (`npm run lab`): hosts do not import the test world.
let lab: Lab['info'];
let stopLab: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  const running = await spawnLab(['--servers', '4']);
  ({ info: lab, stop: stopLab } = running);
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-cli-'));
});
afterAll(async () => {
  await stopLab?.();
  await rm(dataDir, { recursive: true, force: true });
});

const cliEnv = () => ({ ...process.env, STEADFAST_DATA_DIR: dataDir });

describe('cli connect', () => {
  it('prints the proxy addresses, carries traffic, and disconnects cleanly on SIGTERM', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const subscription = lab.subscriptions[1]!;
    const cli = runEntry('main/cli/index.ts', ['connect', '--subscription', subscription.url, '--http-port', String(httpPort), '--socks-port', String(socksPort)], cliEnv());
    try {
      expect(await waitUntil(() => cli.out().includes('socks5://'), 30_000, 50), `${cli.out()}\n${cli.err()}`).toBe(true);
      const lines = cli.out().split('\n');
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
      const cores = processesOf(MAIN_CORE, join(dataDir, 'runtime'));
      expect(cores).toHaveLength(1);

      cli.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(cli.out()).toContain('state: disconnected');
      expect(processesOf(MAIN_CORE, join(dataDir, 'runtime'))).toEqual([]);
    } finally {
      cli.kill();
    }
  });

  it('fails with a sentence when the subscription cannot be fetched', async () => {
    const cli = runEntry('main/cli/index.ts', ['connect', '--subscription', `${lab.control}/no-such-subscription`], cliEnv());
    expect(await cli.exited).toBe(1);
    expect(cli.err()).toMatch(/could not fetch the subscription/);
  });

  it('--routing FILE: the file’s rules apply (a blocked name fails, the rest goes through the server)', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    const routingFile = join(dataDir, 'routing.json');
    const routing = { bypassLan: false, rules: [{ domain: [`full:ads.${lab.zone}`], outbound: 'block' }] };
    await writeFile(routingFile, JSON.stringify({ routing, dns: { remote: lab.resolver, domestic: lab.resolver } }));
    const subscription = lab.subscriptions[0]!;
    const args = ['connect', '--subscription', subscription.url, '--http-port', String(httpPort), '--socks-port', String(socksPort), '--routing', routingFile];
    const cli = runEntry('main/cli/index.ts', args, cliEnv());
    try {
      expect(await waitUntil(() => cli.out().includes('socks5://'), 30_000, 50), `${cli.out()}\n${cli.err()}`).toBe(true);
      expect(cli.err()).toContain('preset global, 1 rule(s) of your own, LAN through the server');
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
      expect(await cli.exited).toBe(0);
    } finally {
      cli.kill();
    }
  });

  it('--routing FILE with an invalid entry: exit 2 naming it, no core started', async () => {
    const routingFile = join(dataDir, 'bad-routing.json');
    await writeFile(routingFile, JSON.stringify({ routing: { rules: [{ ip: ['10.0.0.0/40'], outbound: 'direct' }] } }));
    const cli = runEntry('main/cli/index.ts', ['connect', '--subscription', lab.subscriptions[0]!.url, '--routing', routingFile], cliEnv());
    expect(await cli.exited).toBe(2);
    expect(cli.err()).toContain('routing, rule 1, ip 1: "10.0.0.0/40" has a prefix length outside 0-32');
    expect(processesOf(MAIN_CORE, join(dataDir, 'runtime'))).toEqual([]);
  });
});
