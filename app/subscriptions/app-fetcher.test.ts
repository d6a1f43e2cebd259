import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../log/logger';
import { appFetcher } from './app-fetcher';
import { parseSubscription } from './parse';
import { startDeviceLimitedPanel } from './testing/device-limited-panel';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
let panel: Awaited<ReturnType<typeof startDeviceLimitedPanel>>;

beforeAll(async () => {
  panel = await startDeviceLimitedPanel(`vless://${UUID}@a.example.com:443?security=tls#Frankfurt\n`);
});
afterAll(() => panel.stop());

/** The names of the servers the panel served, and why entries were not servers. */
async function serversFrom(dataDir: string): Promise<{ servers: string[]; rejected: string[] }> {
  const fetcher = await appFetcher({ dataDir, logger: memoryLogger('info').logger });
  try {
    const outcome = await fetcher.fetch(panel.url);
    if (!outcome.ok) throw new Error(outcome.message);
    const parsed = parseSubscription(outcome.body);
    return { servers: parsed.servers.map((s) => s.name), rejected: parsed.rejected.map((r) => r.reason) };
  } finally {
    await fetcher.close();
  }
}

describe('appFetcher', () => {
  it('gets the servers from a panel that limits devices, with the id kept in the profile', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'app-fetcher-'));
    expect(await serversFrom(dataDir)).toEqual({ servers: ['Frankfurt'], rejected: [] });
    const { id } = JSON.parse(readFileSync(join(dataDir, 'device-id.json'), 'utf8')) as { id: string };
    expect(panel.requests.at(-1)).toMatchObject({ 'x-hwid': id });
    // The same installation is the same device on the next run.
    expect(await serversFrom(dataDir)).toEqual({ servers: ['Frankfurt'], rejected: [] });
    expect(panel.requests.at(-1)).toMatchObject({ 'x-hwid': id });
  });

  it('sends no device id when the user said no, and the panel says it does not serve this app', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'app-fetcher-'));
    writeFileSync(join(dataDir, 'device-id.json'), JSON.stringify({ id: '6b1f7b0e-3c2f-4d8b-9a57-1f2e3d4c5b6a', send: false }));
    const { servers, rejected } = await serversFrom(dataDir);
    expect(servers).toEqual([]);
    expect(rejected).toEqual([expect.stringContaining('App not supported')]);
    expect(panel.requests.at(-1)?.['x-hwid']).toBeUndefined();
  });
});
