/**
 * The cores list over the headless host's WebSocket, as the Settings page asks for it: the real
 * cores of this machine (Xray and sing-box bundled, v2ray on PATH), each request validated by the
 * contract, and `--core v2ray` choosing the main core beside a bundled Xray.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CoreList } from '../../shared/domain/cores';
import { TOKEN_PARAM, WS_PATH } from '../../shared/ipc/wire';
import { runEntry } from '../testing/entry-run';
import { ensureRendererBuilt } from './renderer-build';

let dataDir: string;

beforeAll(async () => {
  await ensureRendererBuilt();
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-headless-cores-'));
}, 240_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

type Answer = { kind: 'result'; id: number; ok: true; value: CoreList } | { kind: 'result'; id: number; ok: false; error: string };

/** Starts the host, asks it `payloads` on `listCores` in turn, and stops it. */
async function askHost(args: string[], payloads: unknown[]): Promise<Answer[]> {
  const host = runEntry('main/headless/main.ts', [...args, '--data-dir', join(dataDir, args.join('-') || 'default'), '--port', '0']);
  try {
    const pageUrl = new URL(
      await new Promise<string>((resolve, reject) => {
        host.child.stdout!.on('data', () => {
          const line = host.out().split('\n').find((l) => l.startsWith('http://'));
          if (line) resolve(line.trim());
        });
        host.child.once('exit', (code) => reject(new Error(`the host exited (${code}):\n${host.err().slice(-2000)}`)));
      }),
    );
    const socket = new WebSocket(`ws://${pageUrl.host}${WS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(pageUrl.searchParams.get(TOKEN_PARAM) ?? '')}`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const answers: Answer[] = [];
    for (const [index, payload] of payloads.entries()) {
      const answer = new Promise<Answer>((resolve) => {
        const onMessage = (data: Buffer) => {
          const message = JSON.parse(String(data)) as Answer | { kind: 'event' };
          if (message.kind === 'result' && message.id === index + 1) {
            socket.off('message', onMessage);
            resolve(message);
          }
        };
        socket.on('message', onMessage);
      });
      socket.send(JSON.stringify({ kind: 'invoke', id: index + 1, channel: 'listCores', payload }));
      answers.push(await answer);
    }
    socket.close();
    return answers;
  } finally {
    host.kill('SIGTERM');
    await host.exited;
  }
}

describe('the cores over the headless host', () => {
  it('lists Xray 26.3.27 as the main core, sing-box beside it and v2ray available; a malformed request is refused by the contract', async () => {
    const [list, malformed] = await askHost([], [{}, { all: true }]);
    expect(list).toMatchObject({ ok: true });
    const value = (list as Extract<Answer, { ok: true }>).value;
    expect(value.main).toBe('xray');
    expect(value.cores.map((c) => [c.name, c.version, c.role])).toEqual([
      ['xray', '26.3.27', 'main'],
      ['sing-box', '1.14.1', 'carrier'],
      ['v2ray', '4.34.0', 'available'],
    ]);
    expect(value.cores[0]!.abilities!.confirmed).toContain('protocol:vless');
    expect(malformed).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid listCores request/) });
  }, 120_000);

  it('--core v2ray makes v2ray the main core beside a bundled Xray', async () => {
    const [list] = await askHost(['--core', 'v2ray'], [{}]);
    const value = (list as Extract<Answer, { ok: true }>).value;
    expect(value.main).toBe('v2ray');
    expect(value.cores.map((c) => [c.name, c.role, c.source])).toEqual([
      ['v2ray', 'main', 'setting'],
      ['sing-box', 'carrier', 'bundled'],
      ['xray', 'available', 'bundled'],
    ]);
  }, 120_000);
});
