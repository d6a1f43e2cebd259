/** `npm run sim` as a user runs it: a real process, real files, exit codes and streams. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;

function sim(...args: string[]) {
  return execa('node', ['scripts/sim.mjs', ...args], { cwd: root, reject: false });
}

describe('npm run sim', () => {
  it('prints one JSON object per line, the end line last, and exits 0', async () => {
    const result = await sim('app/auto/sim/scenarios/server-silent.json');
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; at: number });
    // First the watch's transfer test of the connection's server, as soon as traffic passes.
    expect(lines[0]).toEqual({ type: 'transfer-test', at: 960, id: 'fi', verdict: 'ok', bytes: 65_536 });
    expect(lines.find((l) => l.type === 'prepare')).toEqual({ type: 'prepare', at: 122_500, probe: ['fi', 'nl', 'de'] });
    expect(lines.find((l) => l.type === 'check')).toEqual({ type: 'check', at: 125_000, trigger: 'stall', probe: ['fi', 'nl', 'de'] });
    expect(lines.filter((l) => l.type === 'switch')).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({ type: 'end', at: 1_800_000, current: 'fi' });
    const times = lines.map((l) => l.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('a malformed scenario: exit status 2 and one line naming the field at fault', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ subscriptions: [{ id: 'A', servers: ['fi'] }], current: 'fi', world: [{ at: '0s', servers: { fi: 'slow' } }], until: '1m' }));
    const result = await sim(file);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('world[0].servers.fi: expected a delay in ms or "down"');
  });

  it('a missing file or argument is said plainly', async () => {
    const missing = await sim('/nonexistent/scenario.json');
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/^scenario: cannot read \/nonexistent\/scenario\.json/);
    const none = await sim();
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^usage: npm run sim -- SCENARIO\.json/);
  });

  it('--log also writes the AUTO lines to stderr', async () => {
    const result = await sim('app/auto/sim/scenarios/network-lost.json', '--log');
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('INFO AUTO network lost (attempt 1): staying, nothing recorded, next try in 15 s');
  });
});
