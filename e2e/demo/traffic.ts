import { requestThroughProxy } from '../../app/tunnel/proxy-request';

/**
 * A user's steady traffic through the local proxy, for the demo and the benchmarks: Auto only
 * checks while the connection is used, and notices a dead server by the stall. Small requests,
 * bounded in number and time, to the lab's target only.
 */
export class TrafficGenerator {
  private running = false;
  private inFlight = 0;
  private loop: Promise<void> | null = null;
  /** Requests that got an answer / that did not. */
  answered = 0;
  failed = 0;
  /** When the last answer came (epoch ms). */
  lastAnswerAt = 0;

  constructor(
    private readonly proxy: () => string | null,
    private readonly url: string,
    private readonly options: { everyMs?: number; timeoutMs?: number; maxInFlight?: number } = {},
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    const everyMs = this.options.everyMs ?? 250;
    while (this.running) {
      const proxy = this.proxy();
      if (proxy && this.inFlight < (this.options.maxInFlight ?? 4)) void this.once(proxy);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  private async once(proxy: string): Promise<void> {
    this.inFlight++;
    try {
      const result = await requestThroughProxy({ proxyUrl: proxy, url: this.url, timeoutMs: this.options.timeoutMs ?? 3000, maxBytes: 64 * 1024 });
      if (result.ok && result.status < 400) {
        this.answered++;
        this.lastAnswerAt = Date.now();
      } else {
        this.failed++;
      }
    } finally {
      this.inFlight--;
    }
  }
}
