import { requestThroughProxy } from '../../../app/tunnel/proxy-request';

/** One request of the user's traffic: when it started and ended, and which exit IP answered. */
export interface TrafficRequest {
  startedAt: number;
  endedAt: number;
  /** The exit IP the IP-info stand-in saw (the server the request left through); null: no answer. */
  exitIp: string | null;
}

/**
 * A user's steady traffic through the local proxy that also says where each request left: a GET
 * of the lab's api.country.is stand-in, which answers `{ip, country}` for the caller's address, so
 * an answer names the server that carried it. A new request every `everyMs` whatever the earlier
 * ones are doing (as a browser's tabs would), each on a fresh connection with its own deadline:
 * while a server is dead the tunnel keeps seeing data sent and nothing received, which is what
 * Auto's stall trigger watches for.
 */
export class ExitTraffic {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly listeners = new Set<(request: TrafficRequest) => void>();
  /** Every finished request, oldest first (the bench reads windows of it). */
  readonly log: TrafficRequest[] = [];

  constructor(
    private readonly proxy: () => string | null,
    private readonly url: string,
    private readonly options: { everyMs: number; timeoutMs: number; maxInFlight: number } = { everyMs: 250, timeoutMs: 3000, maxInFlight: 16 },
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Called with every finished request. */
  onRequest(listener: (request: TrafficRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first request finishing from now on that `accept`s, or null after `timeoutMs`. */
  waitFor(accept: (request: TrafficRequest) => boolean, timeoutMs: number): Promise<TrafficRequest | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(null);
      }, timeoutMs);
      const off = this.onRequest((request) => {
        if (!accept(request)) return;
        clearTimeout(timer);
        off();
        resolve(request);
      });
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      const proxy = this.proxy();
      if (proxy && this.inFlight.size < this.options.maxInFlight) {
        const flight = this.once(proxy);
        this.inFlight.add(flight);
        void flight.finally(() => this.inFlight.delete(flight));
      }
      await new Promise((r) => setTimeout(r, this.options.everyMs));
    }
  }

  private async once(proxy: string): Promise<void> {
    const startedAt = Date.now();
    const result = await requestThroughProxy({ proxyUrl: proxy, url: this.url, timeoutMs: this.options.timeoutMs, maxBytes: 4096 });
    let exitIp: string | null = null;
    if (result.ok && result.status === 200) {
      try {
        const body = JSON.parse(result.body.toString('utf8')) as { ip?: unknown };
        if (typeof body.ip === 'string') exitIp = body.ip;
      } catch {
        // not the stand-in's answer: counts as no answer
      }
    }
    const request: TrafficRequest = { startedAt, endedAt: Date.now(), exitIp };
    this.log.push(request);
    for (const listener of this.listeners) listener(request);
  }
}
