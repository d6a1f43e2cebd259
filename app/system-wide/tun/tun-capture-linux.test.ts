import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Logger } from '../../log/logger';
import { CaptureRecordFile } from '../record';
import type { ElevatedCommand } from './policy/elevation';
import { LINUX_TUN } from './policy/sing-box-tun';
import { TunCapture } from './tun-capture';
import type { TunHost } from './tun-session';

/** A machine that answers every elevated command with success and runs none (they need root). */
function answeringHost(): TunHost & { commands: ElevatedCommand[] } {
  const commands: ElevatedCommand[] = [];
  return { commands, appPid: process.pid, alive: () => false, run: async (command) => (commands.push(command), { code: 0, stderr: '' }) };
}

async function afterCrash(o: { euid: number; leftovers: boolean }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tun-linux-'));
  await new CaptureRecordFile(dataDir).save({ version: 1, appliedAt: 1, method: 'tun', port: 10808, helperPid: 4242 });
  const host = answeringHost();
  const capture = new TunCapture({
    platform: 'linux',
    dataDir,
    runtimeDir: join(dataDir, 'runtime'),
    logger: new Logger({ level: 'error', sinks: [] }),
    search: { platform: 'linux', env: { PATH: '' } },
    corePath: '/bin/true',
    host,
    euid: o.euid,
    leftoversPresent: async () => o.leftovers,
  });
  const recovered = await capture.recoverAfterCrash();
  return { recovered, host, record: (await new CaptureRecordFile(dataDir).read()).record };
}

describe('Linux: what a killed run of sing-box’s TUN left, at the next start', () => {
  it('its rules still there (sing-box, its watchdog and the app all killed): removed as root, the record dropped', async () => {
    const { recovered, host, record } = await afterCrash({ euid: 0, leftovers: true });
    expect(recovered).toBe(true);
    expect(host.commands).toHaveLength(1);
    expect(host.commands[0]!.file).toBe('/bin/sh');
    expect(host.commands[0]!.args[1]).toContain(`ip link delete ${LINUX_TUN.device}`);
    expect(record).toBeNull();
  });

  it('not root: the removal goes through pkexec (its one prompt)', async () => {
    const { host } = await afterCrash({ euid: 1000, leftovers: true });
    expect(host.commands.map((c) => c.file)).toEqual(['pkexec']);
  });

  it('nothing left (its watchdog cleaned up when the app died): no prompt, the record dropped', async () => {
    const { recovered, host, record } = await afterCrash({ euid: 1000, leftovers: false });
    expect(recovered).toBe(true);
    expect(host.commands).toEqual([]);
    expect(record).toBeNull();
  });
});
