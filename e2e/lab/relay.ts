/**
 * The fault relay: what a client dials instead of the server. It listens on the server's own front
 * address, forwards to the server's real inbound, and injects distance and failure (see
 * relay-policy.ts for the rules). Faults apply to new and existing connections alike.
 */
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { FaultChange, FaultRelay, RelayCounters } from './fault-relay';
import { Lane } from './lane';
import type { LabNetwork } from './network';
import {
  DEFAULT_BANDWIDTH_KBPS,
  DEFAULT_FREEZE_AFTER_BYTES,
  DEFAULT_PERIOD_MS,
  DEFAULT_THROTTLE_BYTES_PER_SECOND,
  type FaultState,
  type Verdict,
  deliveryBudget,
  nextFlapChange,
  normalizeAddress,
  shapingFor,
  verdictFor,
} from './relay-policy';

export interface RelayOptions {
  frontAddress: string;
  /** 0 = any free port (read back after listening). */
  frontPort?: number;
  upstream: { host: string; port: number };
  latencyMs?: number;
  network: LabNetwork;
  random?: () => number;
  /** Tells the service behind the relay who really called (keyed by the relay's outgoing port). */
  onUpstreamOpen?: (localPort: number, source: string) => void;
  onUpstreamClose?: (localPort: number) => void;
  /** Observation only: every chunk a client sends, as it is read (wire-watch.ts records them). */
  onClientData?: (client: Socket, chunk: Buffer) => void;
}

interface Connection {
  client: Socket;
  source: string;
  upstream: Socket | null;
  up: Lane | null;
  down: Lane | null;
  /** Accepted while blackholed: its bytes are gone, so it never carries anything again. */
  swallowed: boolean;
  stalled: boolean;
}

export class Relay implements FaultRelay {
  private server: Server | null = null;
  private port = 0;
  private readonly connections = new Set<Connection>();
  private state: FaultState;
  private flapTimer: NodeJS.Timeout | null = null;
  private readonly random: () => number;
  private readonly unsubscribe: () => void;
  private stopped = false;
  readonly counters: RelayCounters = { connections: 0, active: 0, bytesUp: 0, bytesDown: 0 };

  constructor(private readonly options: RelayOptions) {
    this.random = options.random ?? Math.random;
    this.state = {
      fault: 'none',
      latencyMs: options.latencyMs ?? 0,
      jitterMs: 0,
      periodMs: DEFAULT_PERIOD_MS,
      bandwidthKbps: DEFAULT_BANDWIDTH_KBPS,
      afterBytes: DEFAULT_FREEZE_AFTER_BYTES,
      bytesPerSecond: DEFAULT_THROTTLE_BYTES_PER_SECOND,
      since: performance.now(),
    };
    this.unsubscribe = options.network.subscribe(() => this.reevaluate());
  }

  get address(): string {
    return `${this.options.frontAddress}:${this.port}`;
  }

  get fault(): Readonly<Omit<FaultState, 'since'>> {
    const { since: _since, ...rest } = this.state;
    return rest;
  }

  async start(): Promise<void> {
    await this.listen(this.options.frontPort ?? 0);
  }

  /** Fields given replace the current ones; fields left out keep their value. */
  async setFault(change: FaultChange): Promise<void> {
    const previous = this.state.fault;
    const fault = change.fault ?? previous;
    this.state = {
      fault,
      latencyMs: change.latencyMs ?? this.state.latencyMs,
      jitterMs: change.jitterMs ?? this.state.jitterMs,
      periodMs: change.periodMs ?? this.state.periodMs,
      bandwidthKbps: change.bandwidthKbps ?? this.state.bandwidthKbps,
      afterBytes: change.afterBytes ?? this.state.afterBytes,
      bytesPerSecond: change.bytesPerSecond ?? this.state.bytesPerSecond,
      since: fault !== previous || change.periodMs !== undefined ? performance.now() : this.state.since,
    };
    if (fault === 'refuse' && this.server) {
      // close() waits for open connections, and reevaluate() is what drops them.
      const closing = this.closeListener();
      this.reevaluate();
      await closing;
      return;
    }
    if (fault !== 'refuse' && !this.server && !this.stopped) await this.listen(this.port);
    this.reevaluate();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    if (this.flapTimer) clearTimeout(this.flapTimer);
    this.flapTimer = null;
    for (const c of this.connections) this.destroy(c);
    if (this.server) await this.closeListener();
  }

  private listen(port: number): Promise<void> {
    const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => this.accept(socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.options.frontAddress, port, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', () => undefined);
        this.server = server;
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private closeListener(): Promise<void> {
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private verdict(source: string): Verdict {
    return verdictFor(this.state, source, this.options.network.offline, performance.now());
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    const observe = this.options.onClientData;
    if (observe) client.on('data', (chunk: Buffer) => observe(client, chunk));
    const source = normalizeAddress(client.remoteAddress);
    this.counters.connections += 1;
    const c: Connection = { client, source, upstream: null, up: null, down: null, swallowed: false, stalled: false };
    this.connections.add(c);
    this.counters.active += 1;
    client.once('close', () => {
      this.connections.delete(c);
      this.counters.active -= 1;
      c.up?.close();
      c.down?.close();
      c.upstream?.destroy();
    });
    const verdict = this.verdict(source);
    if (verdict === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (verdict === 'drop') {
      client.destroy();
      return;
    }
    if (verdict === 'blackhole') {
      // Accept, read, discard, never answer: what DPI blocking looks like from the client.
      c.swallowed = true;
      client.on('data', (chunk: Buffer) => {
        this.counters.bytesUp += chunk.length;
      });
      return;
    }
    this.forward(c);
  }

  private forward(c: Connection): void {
    const { client } = c;
    const upstream = createConnection({ host: this.options.upstream.host, port: this.options.upstream.port, allowHalfOpen: true, noDelay: true });
    c.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.once('connect', () => this.options.onUpstreamOpen?.(upstream.localPort ?? 0, c.source));
    let localPort: number | undefined;
    upstream.once('connect', () => {
      localPort = upstream.localPort;
    });
    upstream.once('close', () => {
      if (localPort !== undefined) this.options.onUpstreamClose?.(localPort);
      // A clean end travels as a FIN through the down lane (after the data ahead of it); an abrupt
      // close of the server's side is passed on as one.
      if (!upstream.readableEnded) client.destroy();
    });
    const env = {
      now: () => performance.now(),
      random: this.random,
      shaping: () => shapingFor(this.state),
      budget: () => deliveryBudget(this.state),
    };
    c.up = new Lane(client, upstream, { ...env, onDelivered: () => undefined });
    c.down = new Lane(upstream, client, { ...env, onDelivered: (n) => (this.counters.bytesDown += n) });
    client.on('data', (chunk: Buffer) => {
      this.counters.bytesUp += chunk.length;
      c.up?.push(chunk);
    });
    client.on('end', () => c.up?.finish());
    upstream.on('data', (chunk: Buffer) => c.down?.push(chunk));
    upstream.on('end', () => c.down?.finish());
  }

  /** Applies the current fault to every existing connection, and keeps a flap ticking. */
  private reevaluate(): void {
    for (const c of this.connections) {
      const verdict = this.verdict(c.source);
      if (c.swallowed && verdict !== 'reset' && verdict !== 'drop') continue;
      if (verdict === 'reset') {
        c.upstream?.destroy();
        c.client.resetAndDestroy();
      } else if (verdict === 'drop') {
        this.destroy(c);
      } else if (verdict === 'blackhole' && !c.stalled) {
        c.stalled = true;
        c.up?.stall();
        c.down?.stall();
      } else if (verdict === 'pass' && c.stalled) {
        c.stalled = false;
        c.up?.unstall();
        c.down?.unstall();
      } else {
        // The delivery budget may have changed (a freeze set or lifted).
        c.up?.recheck();
        c.down?.recheck();
      }
    }
    if (this.flapTimer) clearTimeout(this.flapTimer);
    this.flapTimer = null;
    if (this.state.fault === 'flap' && !this.stopped) {
      const now = performance.now();
      this.flapTimer = setTimeout(() => this.reevaluate(), Math.max(1, Math.ceil(nextFlapChange(this.state, now) - now)));
    }
  }

  private destroy(c: Connection): void {
    c.up?.close();
    c.down?.close();
    c.upstream?.destroy();
    c.client.destroy();
  }
}
