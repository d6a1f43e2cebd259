/**
 * The fault relay for UDP servers (QUIC-based protocols, WireGuard): what a client sends its
 * datagrams to. Each client source (address:port) is a session with its own upstream socket to
 * the server, so the server sees one peer per client, as behind a NAT. The faults are those of the
 * TCP relay in datagram terms (relay-policy.ts): blackhole drops, reset and refuse close the port
 * (the kernel answers ICMP port unreachable), latency and jitter delay each datagram, slow and
 * throttle cap the rate with a bounded queue, freeze passes the first `afterBytes` each way of a
 * session and drops the rest. Several front ports (a port-hopping range) may lead to the one
 * server port: a session answers through the port its client last sent to.
 */
import { type Socket, createSocket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import type { FaultChange, FaultRelay, RelayCounters } from './fault-relay';
import type { LabNetwork } from './network';
import {
  DEFAULT_BANDWIDTH_KBPS,
  DEFAULT_FREEZE_AFTER_BYTES,
  DEFAULT_PERIOD_MS,
  DEFAULT_THROTTLE_BYTES_PER_SECOND,
  type FaultState,
  type LaneClock,
  deliveryBudget,
  newLaneClock,
  normalizeAddress,
  scheduleDatagram,
  shapingFor,
  udpPortOpen,
  verdictFor,
} from './relay-policy';

/** A session nobody has sent through for this long is forgotten (its upstream socket closed). */
export const UDP_SESSION_IDLE_MS = 60_000;

export interface UdpRelayOptions {
  frontAddress: string;
  /** How many consecutive front ports to listen on (a port-hopping range); default 1. */
  portCount?: number;
  upstream: { host: string; port: number };
  latencyMs?: number;
  network: LabNetwork;
  random?: () => number;
}

interface Session {
  key: string;
  source: string;
  sourcePort: number;
  /** The front socket the client last sent to: answers leave from it. */
  front: Socket;
  upstream: Socket | null;
  up: { clock: LaneClock; delivered: number };
  down: { clock: LaneClock; delivered: number };
  lastSeen: number;
}

export class UdpRelay implements FaultRelay {
  private fronts: Socket[] = [];
  private ports: number[] = [];
  private readonly sessions = new Map<string, Session>();
  private state: FaultState;
  private readonly random: () => number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;
  readonly counters: RelayCounters = { connections: 0, active: 0, bytesUp: 0, bytesDown: 0 };

  constructor(private readonly options: UdpRelayOptions) {
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
  }

  /** The first front port: "127.0.x.y:PORT". */
  get address(): string {
    return `${this.options.frontAddress}:${this.ports[0] ?? 0}`;
  }

  /** Every front port (one, or the hopping range in order). */
  get frontPorts(): readonly number[] {
    return this.ports;
  }

  get fault(): Readonly<Omit<FaultState, 'since'>> {
    const { since: _since, ...rest } = this.state;
    return rest;
  }

  async start(): Promise<void> {
    const count = this.options.portCount ?? 1;
    // A range needs consecutive free ports: take a free first port, then the ones after it; try
    // again elsewhere if one of them is taken.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const first = await this.bind(0).catch(() => null);
      if (!first) continue;
      const sockets = [first.socket];
      let ok = true;
      for (let k = 1; k < count && ok; k += 1) {
        const next = first.port + k <= 65_535 ? await this.bind(first.port + k).catch(() => null) : null;
        if (next) sockets.push(next.socket);
        else ok = false;
      }
      if (ok) {
        this.fronts = sockets;
        this.ports = sockets.map((_, k) => first.port + k);
        if (count > 1) this.counters.datagramsByPort = Object.fromEntries(this.ports.map((p) => [p, 0]));
        this.sweeper = setInterval(() => this.sweep(), 5_000);
        this.sweeper.unref();
        return;
      }
      await Promise.all(sockets.map((s) => closeSocket(s)));
    }
    throw new Error(`no ${count} consecutive free UDP ports on ${this.options.frontAddress}`);
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
    const open = this.fronts.length > 0;
    if (!udpPortOpen(fault) && open) {
      const fronts = this.fronts;
      this.fronts = [];
      for (const session of this.sessions.values()) this.forget(session);
      await Promise.all(fronts.map((s) => closeSocket(s)));
    } else if (udpPortOpen(fault) && !open && !this.stopped) {
      // The same address:ports again, as the TCP relay's `refuse` reopens its listener.
      this.fronts = await Promise.all(this.ports.map(async (port) => (await this.bind(port)).socket));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const session of this.sessions.values()) this.forget(session);
    const fronts = this.fronts;
    this.fronts = [];
    await Promise.all(fronts.map((s) => closeSocket(s)));
  }

  private bind(port: number): Promise<{ socket: Socket; port: number }> {
    const socket = createSocket({ type: 'udp4' });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: this.options.frontAddress, port, exclusive: true }, () => {
        socket.off('error', reject);
        socket.on('error', () => undefined);
        const bound = socket.address().port;
        socket.on('message', (message, remote) => {
          const byPort = this.counters.datagramsByPort;
          if (byPort) byPort[bound] = (byPort[bound] ?? 0) + 1;
          this.fromClient(socket, message, remote.address, remote.port);
        });
        resolve({ socket, port: bound });
      });
    });
  }

  private fromClient(front: Socket, message: Buffer, address: string, port: number): void {
    const source = normalizeAddress(address);
    const key = `${source}:${port}`;
    const now = performance.now();
    let session = this.sessions.get(key);
    if (!session) {
      session = { key, source, sourcePort: port, front, upstream: null, up: { clock: newLaneClock(), delivered: 0 }, down: { clock: newLaneClock(), delivered: 0 }, lastSeen: now };
      this.sessions.set(key, session);
      this.counters.connections += 1;
      this.counters.active += 1;
    }
    session.front = front;
    session.lastSeen = now;
    this.counters.bytesUp += message.length;
    if (verdictFor(this.state, source, this.options.network.offline, now) !== 'pass') return; // swallowed
    const s = session;
    this.deliver(s, s.up, message, now, () => {
      if (this.sessions.get(s.key) === s) this.upstreamOf(s).send(message, this.options.upstream.port, this.options.upstream.host);
    });
  }

  private fromServer(session: Session, message: Buffer): void {
    const now = performance.now();
    session.lastSeen = now;
    if (verdictFor(this.state, session.source, this.options.network.offline, now) !== 'pass') return;
    this.deliver(session, session.down, message, now, () => {
      if (this.sessions.get(session.key) !== session) return;
      session.front.send(message, session.sourcePort, session.source, (error) => {
        if (!error) this.counters.bytesDown += message.length;
      });
    });
  }

  /**
   * Sends `message` now or after its delay, unless the policy drops it. A datagram still in flight
   * when the path goes dark (blackhole, flap down, offline) is lost, as on a real link.
   */
  private deliver(session: Session, direction: Session['up'], message: Buffer, now: number, send: () => void): void {
    const fate = scheduleDatagram(direction.clock, now, message.length, direction.delivered, shapingFor(this.state), deliveryBudget(this.state), this.random);
    if (!fate) return;
    direction.clock = fate.clock;
    direction.delivered += message.length;
    const wait = fate.at - now;
    if (wait <= 0) {
      send();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped && verdictFor(this.state, session.source, this.options.network.offline, performance.now()) === 'pass') send();
    }, Math.ceil(wait));
    this.timers.add(timer);
  }

  private upstreamOf(session: Session): Socket {
    if (session.upstream) return session.upstream;
    const socket = createSocket({ type: 'udp4' });
    socket.on('error', () => undefined);
    // On loopback, as every lab socket is (sends wait until the bind is done).
    socket.bind({ address: '127.0.0.1', port: 0 });
    const { port } = this.options.upstream;
    socket.on('message', (message, remote) => {
      if (remote.port === port) this.fromServer(session, message);
    });
    session.upstream = socket;
    return socket;
  }

  private forget(session: Session): void {
    if (this.sessions.get(session.key) !== session) return;
    this.sessions.delete(session.key);
    this.counters.active -= 1;
    session.upstream?.close();
    session.upstream = null;
  }

  private sweep(): void {
    const now = performance.now();
    for (const session of this.sessions.values()) if (now - session.lastSeen > UDP_SESSION_IDLE_MS) this.forget(session);
  }
}

function closeSocket(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    try {
      socket.close(() => resolve());
    } catch {
      resolve(); // already closed
    }
  });
}
