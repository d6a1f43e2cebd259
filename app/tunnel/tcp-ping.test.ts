import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './ports';
import { tcpPing } from './tcp-ping';

let listening: Server;
let port = 0;

beforeAll(async () => {
  listening = createServer((s) => s.destroy());
  await new Promise<void>((r) => listening.listen(0, '127.0.0.1', () => r()));
  port = (listening.address() as AddressInfo).port;
});
afterAll(() => void listening.close());

describe('tcpPing', () => {
  it('measures the connect time to a listening server', async () => {
    const outcome = await tcpPing({ address: '127.0.0.1', port }, 1000);
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.delayMs).toBeLessThan(100);
  });

  it('resolves names first', async () => {
    expect((await tcpPing({ address: 'localhost', port }, 1000)).ok).toBe(true);
  });

  it('says refused for a closed port', async () => {
    const closed = await freePort();
    expect(await tcpPing({ address: '127.0.0.1', port: closed }, 1000)).toMatchObject({ ok: false, error: { kind: 'refused' } });
  });
});
