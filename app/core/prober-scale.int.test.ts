/**
 * The prober config at scale with the real v2ray 4.34: 2,000 servers (one inbound + one outbound
 * + one routing rule each) pass the config test and start; prints the figures (no assertion on
 * time beyond a generous bound).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore, proberConfig, writeConfigFile } from './index';
import { accepts, freePorts, startCore, waitForPort } from './int-support';
import { testConfig } from './run-core';
import { sampleServer } from './samples';

const COUNT = 2000;
let core: CoreProfile;
let dir: string;
beforeAll(async () => {
  core = await detectCore('/usr/bin/v2ray');
  dir = await mkdtemp(join(tmpdir(), 'prober-scale-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it(`${COUNT} servers: config passes -test, the core starts and every inbound accepts`, async () => {
  const protocols = ['vmess', 'vless', 'trojan', 'shadowsocks'] as const;
  // Batches of free ports can repeat a port the kernel handed out before: keep only new ones.
  const unique = new Set<number>();
  while (unique.size < COUNT) for (const port of await freePorts(Math.min(200, COUNT - unique.size))) unique.add(port);
  const ports = [...unique];
  const entries = ports.map((port, i) => ({
    server: { ...sampleServer(protocols[i % 4]!, i % 3 === 0 ? 'ws' : 'tcp'), id: `s${i}`, name: `server ${i}`, address: '127.0.0.1', port: 1 } as Server,
    port,
  }));

  const buildStart = performance.now();
  const config = proberConfig({ entries, core, listen: '127.0.0.1' });
  const buildMs = performance.now() - buildStart;
  const file = await writeConfigFile(dir, 'prober', config);
  const bytes = (await stat(file)).size;

  const testStart = performance.now();
  const tested = await testConfig(core, config, dir, 'prober-test');
  const testMs = performance.now() - testStart;
  expect(tested.ok, tested.message).toBe(true);

  const startAt = performance.now();
  const prober = startCore(core.path, ['-config', file]);
  try {
    // v2ray opens its inbounds in no particular order: the prober is ready when every one accepts.
    for (const port of ports) await waitForPort(port, 30_000);
    const startMs = performance.now() - startAt;
    let accepting = 0;
    for (const port of ports) if (await accepts(port)) accepting++;
    const rssKb = Number((await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${prober.child.pid}/status`, 'utf8'))).match(/VmRSS:\s+(\d+)/)?.[1] ?? Number.NaN);
    console.log(JSON.stringify({ servers: COUNT, config_bytes: bytes, bytes_per_server: Math.round(bytes / COUNT), build_ms: Math.round(buildMs), test_ms: Math.round(testMs), start_to_all_inbounds_ms: Math.round(startMs), rss_kb: rssKb }));
    expect(accepting).toBe(COUNT);
    expect(startMs).toBeLessThan(20_000);
  } finally {
    await prober.stop();
  }
});
