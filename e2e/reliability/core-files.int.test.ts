/**
 * The engine runs up to three cores from one runtime folder: the tunnel, the prober and the
 * reachability vantage core. Each must have a config file of its own: a core reads its file when
 * it starts, and each owner deletes its file when it retires the core, so two owners sharing a
 * name could start a core on the other's config or delete a file the other is about to read.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore } from '../../app/core';
import { memoryLogger } from '../../app/log/logger';
import { ChainedProber } from '../../app/reachability';
import { CoreProber } from '../../app/tunnel/prober';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import { waitUntil } from '../../app/tunnel/testing/processes';
import { type InProcessLab, startLab } from '../lab';
import { coreProcesses } from './inventory';

let lab: InProcessLab;
let servers: Server[];
let core: CoreProfile;
let runtimeDir: string;

beforeAll(async () => {
  lab = await startLab({ servers: 4, subscriptions: 1, latency: [10, 20] });
  servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
  core = await detectCore('/usr/bin/v2ray');
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-core-files-'));
});

afterAll(async () => {
  await lab?.stop();
  if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
});

it('the prober and the vantage core run from config files of their own, and retiring one leaves the other’s file alone', async () => {
  const log = memoryLogger('info');
  const prober = new CoreProber({ core, runtimeDir, logger: log.logger, rebuildDebounceMs: 20 });
  const vantages = new ChainedProber({ core, runtimeDir, logger: log.logger, url: () => lab.info.target, idleMs: 300 });
  try {
    prober.setServers(servers);
    await prober.settled();
    const plain = servers.filter((s) => s.transport.network === 'tcp' && s.security.type === 'none');
    const result = await vantages.reachThrough(plain[0]!, plain[1]!, 5000);
    expect(result.reached).toBe(true);

    const running = coreProcesses(runtimeDir).cores;
    expect(running).toHaveLength(2);
    expect(new Set(running.map((c) => c.config)).size).toBe(2);
    expect(running.map((c) => c.role).sort()).toEqual(['prober', 'vantage']);

    const proberConfig = join(runtimeDir, running.find((c) => c.role === 'prober')!.config);
    // The vantage core stops when idle and its owner deletes its file.
    expect(await waitUntil(() => coreProcesses(runtimeDir).cores.length === 1, 5000, 50)).toBe(true);
    expect(existsSync(proberConfig)).toBe(true);
  } finally {
    await vantages.stop();
    await prober.close();
  }
  expect(coreProcesses(runtimeDir).cores).toEqual([]);
});
