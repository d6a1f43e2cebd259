/**
 * A new user in a country whose DPI freezes foreign connections after 16 KB (issue 29): the lab
 * with 6 servers in one subscription, all but one under the relay's `freeze` fault, a fresh data
 * folder, Auto turned on and connected, and a 40 KB download through the local proxy every
 * second. One trial says when Auto was on the healthy server, how the downloads fared from then
 * on, and every switch it made. Shared by the integration test and `npm run bench -- freeze`.
 */
import type { AutoDecision } from '../../shared/domain/auto';
import type { ServerId } from '../../shared/domain/server';
import { requestThroughProxy } from '../../app/tunnel/proxy-request';
import { ReliabilityWorld, sleep } from './world';

export const FREEZE_FAULT = { fault: 'freeze', afterBytes: 16 * 1024 } as const;
const DOWNLOAD_BYTES = 40 * 1024;

/** A 40 KB download each second through the proxy, each remembered with when it started and how it ended. */
export class DownloadLoop {
  readonly downloads: { startedAt: number; ok: boolean }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly proxy: () => string | null,
    private readonly url: string,
    private readonly timeoutMs = 5000,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.once(), 1000);
    this.once();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.inFlight);
  }

  /** Downloads started at or after `since` that have ended: how many, and how many completed. */
  since(since: number): { total: number; ok: number } {
    const list = this.downloads.filter((d) => d.startedAt >= since);
    return { total: list.length, ok: list.filter((d) => d.ok).length };
  }

  private once(): void {
    const proxy = this.proxy();
    if (!proxy) return;
    const startedAt = Date.now();
    const run = requestThroughProxy({ proxyUrl: proxy, url: this.url, timeoutMs: this.timeoutMs, maxBytes: DOWNLOAD_BYTES + 1024 })
      .then((r) => r.ok && r.status === 200 && r.body.length === DOWNLOAD_BYTES)
      .catch(() => false)
      .then((ok) => {
        this.downloads.push({ startedAt, ok });
      });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }
}

export interface FreezeTrial {
  healthy: ServerId;
  frozen: ServerId[];
  /** From the connect request to Auto's tunnel being up on the healthy server; null if it never was. */
  onHealthyMs: number | null;
  /** Downloads started once it was there, over `afterMs`. */
  after: { total: number; ok: number };
  switches: Extract<AutoDecision, { type: 'switch' }>[];
  decisions: AutoDecision[];
}

/**
 * One trial from a fresh data folder. `healthyIndex`: the healthy server's place in subscription
 * order (5: last). Waits up to `deadlineMs` for Auto to be on it, then counts the downloads for `afterMs`.
 */
export async function freezeTrial(options: { healthyIndex: number; deadlineMs?: number; afterMs?: number }): Promise<FreezeTrial> {
  const deadlineMs = options.deadlineMs ?? 30_000;
  const afterMs = options.afterMs ?? 20_000;
  // The app's own timings (stall 5 s, monitor every 5 min), the lab's target and its `/bytes/{bytes}`.
  const w = await ReliabilityWorld.start({ servers: 6, subscriptions: 1, settings: { stallThresholdMs: 5000 }, monitor: { intervalMs: 300_000, urlTestTimeoutMs: 5000 } });
  const loop = new DownloadLoop(() => w.httpProxy(), `${w.lab.info.bytes}/${DOWNLOAD_BYTES}`);
  try {
    const subscription = (await w.snapshot()).subscriptions[0]!;
    const ids = subscription.servers.map((s) => s.id);
    const healthy = ids[options.healthyIndex]!;
    const frozen = ids.filter((id) => id !== healthy);
    await w.setFaults(await Promise.all(frozen.map((id) => w.labIdOf(id))), FREEZE_FAULT);

    const since = Date.now();
    await w.engine.setAuto({ subscriptionId: subscription.id });
    const connected = await w.engine.connect({});
    if (connected.state !== 'connected') throw new Error(`not connected: ${connected.state} ${connected.error ?? ''}`);
    loop.start();

    let onHealthyAt: number | null = null;
    while (Date.now() - since < deadlineMs) {
      const c = (await w.snapshot()).connection;
      if (c.state === 'connected' && c.serverId === healthy) {
        onHealthyAt = Date.now();
        break;
      }
      await sleep(100);
    }
    if (onHealthyAt !== null) await sleep(afterMs);
    await loop.stop();
    const decisions = w.decisionsSince(since);
    return {
      healthy,
      frozen,
      onHealthyMs: onHealthyAt === null ? null : onHealthyAt - since,
      after: onHealthyAt === null ? { total: 0, ok: 0 } : loop.since(onHealthyAt),
      switches: decisions.filter((d): d is Extract<AutoDecision, { type: 'switch' }> => d.type === 'switch'),
      decisions,
    };
  } finally {
    await loop.stop();
    // `stop`, not `shutdown`: its checks wait with vitest's waitFor, and the benchmark runs outside vitest.
    await w.stop();
  }
}
