/**
 * Secrets (issue 9): the app runs against the lab for a while at debug log level with faults
 * happening (a switch, a blocked-here verdict with its vantage core, a lost network, a killed
 * prober, a garbage subscription update, rate-limited IP-info services). Then every log line and
 * every file the app wrote, outside the config files that must hold credentials, is searched for
 * every UUID and password of the subscriptions, in every spelling a link or a config uses. None
 * may appear. The files that do hold them are 0600, and the data folder the app created is 0700.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AutoDecision } from '../../shared/domain/auto';
import { ReliabilityWorld, sleep } from './world';
import { waitFor } from '../../app/testing/wait';

let w: ReliabilityWorld;
const parent = mkdtempSync(join(tmpdir(), 'steadfast-secrets-'));
/** Not created beforehand: the app makes its own data folder. */
const dataDir = join(parent, 'steadfast-vpn');

/** Files that exist to hold credentials (written 0600): the subscriptions and the cores' configs. */
const SECRET_FILES = [/^subscriptions\.json(\.bak|\.corrupt-.+)?$/, /^runtime\/(tunnel|prober-\d+|vantage-\d+)\.json$/];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/** Every way a credential appears in a share link, a subscription body or a core config. */
function spellings(): string[] {
  const out = new Set<string>();
  for (const server of w.world.servers) {
    for (const secret of [server.uuid, server.password]) {
      out.add(secret);
      out.add(encodeURIComponent(secret));
      out.add(JSON.stringify(secret).slice(1, -1));
    }
    const userinfo = `${server.ssMethod}:${server.password}`;
    const b64 = Buffer.from(userinfo).toString('base64');
    out.add(b64.replace(/=+$/, ''));
    out.add(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  return [...out].filter((s) => s.length >= 8);
}

beforeAll(async () => {
  // Debug from the start and again through the settings, as a user switching it on would.
  w = await ReliabilityWorld.start({ dataDir, logLevel: 'debug' });
  await w.engine.setSettings({ logLevel: 'debug' });
  await w.connectAndSettle();
}, 90_000);

afterAll(async () => {
  await w?.stop();
  rmSync(parent, { recursive: true, force: true });
}, 60_000);

it('no UUID or password of any subscription reaches a log line or a file outside the 0600 config files', async () => {
  const labOf = async (id: string) => w.labIdOf(id);

  // A switch: the current server blackholed.
  const current = await w.current();
  let mark = Date.now();
  await w.setFaults([await labOf(current)], { fault: 'blackhole' });
  await w.waitForDecision(mark, 'a switch', (d: AutoDecision) => d.type === 'switch', 20_000);
  await w.clearFaults();
  // A server blocked here: the reachability runtime asks a vantage core.
  const other = (await w.serverIds()).find((id) => id !== current)!;
  await w.setFaults([await labOf(other), w.lab.info.servers.at(-1)!.id], { fault: 'blocked-here' });
  await w.setFaults([w.lab.info.servers.at(-2)!.id], { fault: 'reset' });
  await w.engine.testAll({});
  await sleep(6000);
  await w.engine.testAll({});
  await sleep(4000);
  await w.clearFaults();
  // The network gone for a moment.
  mark = Date.now();
  await w.lab.setNetwork('offline');
  await w.waitForDecision(mark, 'network lost', (d) => d.type === 'network-lost', 20_000).catch(() => undefined);
  await w.lab.setNetwork('online');
  // The prober killed, a garbage update, IP-info services refusing.
  const prober = w.inventory().cores.find((c) => c.role === 'prober');
  if (prober) process.kill(prober.pid, 'SIGKILL');
  const labSub = w.lab.info.subscriptions[1]!;
  await w.lab.setSubscription(labSub.id, { mode: 'garbage' });
  const second = (await w.snapshot()).subscriptions.find((s) => s.url === labSub.url)!;
  await w.engine.updateSubscription({ id: second.id });
  await w.lab.setSubscription(labSub.id, { mode: 'ok' });
  await w.engine.updateSubscription({ id: second.id });
  await w.lab.setIpInfo('ipapi.co', '429');
  await w.restartEngine();
  await w.engine.testAll({});
  await sleep(5000);
  await w.lab.setIpInfo('ipapi.co', 'ok');
  await w.stopEngine();
  await waitFor('no core left', () => w.inventory().cores.length === 0, 10_000);

  // The run must have produced plenty to search, at debug level.
  expect(w.log.lines.length).toBeGreaterThan(200);
  expect(w.log.lines.some((l) => / DEBUG /.test(l))).toBe(true);
  expect(w.log.lines.some((l) => /vantage|reachability/i.test(l))).toBe(true);

  const secrets = spellings();
  expect(secrets.length).toBeGreaterThan(w.world.servers.length);
  const leaks: string[] = [];
  w.log.lines.forEach((line, i) => {
    for (const secret of secrets) if (line.includes(secret)) leaks.push(`log line ${i}: …${secret.slice(0, 4)}…`);
  });
  const files = filesUnder(dataDir);
  expect(files).toEqual(expect.arrayContaining(['app.log', 'settings.json', 'subscriptions.json', 'auto.json', 'monitor-cache.json', 'device-id.json']));
  const searched: string[] = [];
  for (const file of files) {
    if (SECRET_FILES.some((re) => re.test(file))) continue;
    searched.push(file);
    const text = readFileSync(join(dataDir, file), 'latin1');
    for (const secret of secrets) if (text.includes(secret)) leaks.push(`${file}: …${secret.slice(0, 4)}…`);
  }
  expect(searched).toEqual(expect.arrayContaining(['app.log', 'settings.json', 'auto.json', 'monitor-cache.json']));
  expect(leaks).toEqual([]);
  // The search is able to find them: the subscriptions file holds every server's credential.
  const stored = readFileSync(join(dataDir, 'subscriptions.json'), 'utf8');
  for (const server of w.world.servers) {
    expect(stored.includes(server.protocol === 'vmess' || server.protocol === 'vless' ? server.uuid : server.password), server.id).toBe(true);
  }
  // The app's log file holds the same lines the test saw (it is what a user would attach to a bug report).
  expect(readFileSync(join(dataDir, 'app.log'), 'utf8').split('\n').length).toBeGreaterThan(200);

  // What holds credentials (or a log of the app's doings) is the owner's alone.
  const modes = Object.fromEntries(files.map((f) => [f, statSync(join(dataDir, f)).mode & 0o777]));
  for (const file of files) {
    if (SECRET_FILES.some((re) => re.test(file)) || file === 'settings.json' || file.startsWith('settings.json.') || file === 'app.log' || file === 'device-id.json') {
      expect(modes[file], `${file} is ${modes[file]?.toString(8)}`).toBe(0o600);
    }
  }
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dataDir, 'runtime')).mode & 0o777).toBe(0o700);
  console.info(`secrets: ${secrets.length} spellings of ${w.world.servers.length} servers' credentials searched in ${w.log.lines.length} log lines and ${searched.length} files (${searched.join(', ')}); modes ${JSON.stringify(Object.fromEntries(Object.entries(modes).map(([f, m]) => [f, m.toString(8)])))}`);
}, 180_000);
