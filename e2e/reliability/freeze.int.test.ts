/**
 * Servers that answer a ping but freeze real traffic, in the lab with the whole engine: the relay
 * passes 16 KB of each connection each way, then nothing, keeping it open (the DPI of the field).
 * - The monitor's transfer test names such a server within one (shortened) interval; Auto never
 *   takes it while other servers answer; lifting the fault clears it.
 * - The user's traffic on a server that starts freezing stalls, and the stall trigger moves Auto
 *   within the stall threshold plus the check (whose transfer test of the current server is what
 *   tells the freeze from a live server: its ping still answers).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../shared/domain/auto';
import { TRANSFER_STALL_MS, transferDeadlineMs } from '../../app/monitor/policy/transfer';
import { ReliabilityWorld, STALL_MS, URL_TEST_TIMEOUT_MS, sleep } from './world';
import { waitFor } from '../../app/testing/wait';

const INTERVAL_MS = 4000;
const BYTES = 64 * 1024;
const FREEZE = { fault: 'freeze', afterBytes: 16 * 1024 } as const;
/** A fault set just after a transfer test is seen by the next one: an interval, then the test itself. */
const ONE_INTERVAL_MS = INTERVAL_MS + transferDeadlineMs(BYTES, URL_TEST_TIMEOUT_MS) + 1000;

/**
 * A chatty client on one long-lived connection through the tunnel (a browser's keep-alive or a
 * stream): a request every 200 ms on the same connection, reopened when the tunnel moves. Once
 * it has carried more than 16 KB, a freeze leaves it sending with nothing coming back.
 */
class KeepAliveTraffic {
  received = 0;
  lastReceiveAt = 0;
  private socket: Socket | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly proxy: () => string | null,
    private readonly target: URL,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 200);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.socket?.destroy();
  }

  private tick(): void {
    if (this.socket && !this.socket.destroyed) {
      if (this.socket.readyState === 'open' && (this.socket as Socket & { tunnelled?: boolean }).tunnelled) {
        this.socket.write(`GET /bytes/8192 HTTP/1.1\r\nHost: ${this.target.host}\r\nConnection: keep-alive\r\n\r\n`);
      }
      return;
    }
    const proxy = this.proxy();
    if (!proxy) return;
    const { hostname, port } = new URL(proxy);
    const socket = connect({ host: hostname, port: Number(port) }) as Socket & { tunnelled?: boolean };
    this.socket = socket;
    socket.on('error', () => socket.destroy());
    socket.once('connect', () => socket.write(`CONNECT ${this.target.host} HTTP/1.1\r\nHost: ${this.target.host}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      if (!socket.tunnelled) {
        if (/^HTTP\/1\.[01] 200/.test(chunk.toString('latin1'))) socket.tunnelled = true;
        else socket.destroy();
        return;
      }
      this.received += chunk.length;
      this.lastReceiveAt = Date.now();
    });
  }
}

let w: ReliabilityWorld;
let home = '';

beforeAll(async () => {
  w = await ReliabilityWorld.startSettled({ monitor: { intervalMs: INTERVAL_MS, transferTestBytes: BYTES } });
  home = (await w.snapshot()).subscriptions[0]!.id;
}, 90_000);

afterAll(async () => {
  await w?.shutdown();
}, 60_000);

const transferOf = async (id: string) => (await w.snapshot()).statuses[id]?.transfer ?? null;

describe('a server that answers pings but freezes traffic', () => {
  it('is named within one interval, never taken by Auto while others answer, and cleared once the fault is gone', async () => {
    const current = await w.freshAuto(home);
    const next = (await w.queue(home)).find((id) => id !== current)!;
    const mark = Date.now();
    await w.setFaults([await w.labIdOf(next)], FREEZE);
    try {
      const seen = await waitFor('the freeze named', async () => ((await transferOf(next))?.verdict === 'freezes' ? transferOf(next) : null), ONE_INTERVAL_MS);
      expect(seen!.at - mark).toBeLessThanOrEqual(ONE_INTERVAL_MS);
      expect((await w.snapshot()).statuses[next]!.delayMs, 'its ping still answers').not.toBeNull();
      const queue = await w.queue(home);
      const answering = (await w.serverIds(home)).filter((id) => id !== next);
      expect(queue.indexOf(next), `queue ${queue.join(', ')}`).toBeGreaterThanOrEqual(answering.length);

      // The current server dies: Auto moves, and not to the freezing one, its best-scored other.
      const before = Date.now();
      await w.setFaults([await w.labIdOf(current)], { fault: 'blackhole' });
      const move = (await w.waitForDecision(before, `leaves ${current}`, (d) => d.type === 'switch', 20_000)) as Extract<AutoDecision, { type: 'switch' }>;
      expect(move.to).not.toBe(next);
      const skipped = w.decisionsSince(before).find((d) => d.type === 'probe-result' && d.id === next);
      if (skipped) expect(skipped, 'the timeline says why it was skipped').toMatchObject({ transfer: 'freezes' });
    } finally {
      await w.clearFaults();
    }
    await waitFor('the freeze cleared', async () => (await transferOf(next))?.verdict === 'ok', ONE_INTERVAL_MS);
    await w.assertSound();
  });

  it('with the user’s traffic on it, moves Auto within the stall threshold plus the check', async () => {
    const current = await w.freshAuto(home);
    const target = new URL(w.lab.info.target);
    const keepAlive = new KeepAliveTraffic(() => w.httpProxy(), target);
    await w.traffic.stop();
    keepAlive.start();
    try {
      await waitFor('a connection that carried more than 16 KB', () => keepAlive.received > 64 * 1024, 10_000);
      const mark = Date.now();
      await w.setFaults([await w.labIdOf(current)], FREEZE);
      const bound = STALL_MS + URL_TEST_TIMEOUT_MS + TRANSFER_STALL_MS + 3000;
      const move = (await w.waitForDecision(mark, `leaves ${current}`, (d) => d.type === 'switch', bound)) as Extract<AutoDecision, { type: 'switch' }>;
      expect(move).toMatchObject({ from: current, reason: 'current-silent' });
      const check = w.decisionsSince(mark).find((d) => d.type === 'check');
      expect(check).toMatchObject({ trigger: 'stall' });
      expect(w.decisionsSince(mark).find((d) => d.type === 'probe-result' && d.id === current)).toMatchObject({ transfer: 'freezes' });
      const movedAt = Date.now();
      await waitFor('traffic through the new server', () => keepAlive.lastReceiveAt > movedAt, 10_000);
    } finally {
      keepAlive.stop();
      await w.clearFaults();
      w.traffic.start();
    }
    await sleep(500);
    await w.assertSound();
  });
});
