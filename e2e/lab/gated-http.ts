/**
 * An HTTP service behind a relay with no injected distance, so it obeys the lab's network switch
 * (offline = the user's connections are blackholed, new and existing) exactly like the server
 * relays. The relay tells us who really called, so handlers see the caller's source address (a
 * server's exit IP when the request came through a lab server).
 *
 * With `ipv6`, a second relay answers on ::1 at the same port, so a name that resolves to both
 * loopback addresses reaches the same service either way (the monitor's IPv6 check). Where ::1
 * cannot be bound (IPv6 disabled) the service runs on IPv4 alone and `ipv6Address` is null.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { LabNetwork } from './network';
import { Relay } from './relay';
import { normalizeAddress } from './relay-policy';

export type Handler = (req: IncomingMessage, res: ServerResponse, source: string) => void;

export class GatedHttpServer {
  private readonly http: Server;
  private relay: Relay | null = null;
  private relay6: Relay | null = null;
  private readonly callers = new Map<number, string>();
  private readonly sockets = new Set<Socket>();

  constructor(
    handler: Handler,
    private readonly network: LabNetwork,
    private readonly options: { ipv6?: boolean } = {},
  ) {
    this.http = createServer((req, res) => {
      const port = req.socket.remotePort ?? 0;
      handler(req, res, this.callers.get(port) ?? normalizeAddress(req.socket.remoteAddress));
    });
    this.http.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Keep-alive is fine, but never let an idle socket keep the lab from stopping.
    this.http.keepAliveTimeout = 5000;
  }

  /** Where clients connect: "127.0.0.1:PORT". */
  get address(): string {
    if (!this.relay) throw new Error('not started');
    return this.relay.address;
  }

  /** Where clients connect over IPv6: "[::1]:PORT" (the same port), or null without IPv6. */
  get ipv6Address(): string | null {
    if (!this.relay6) return null;
    return `[::1]:${portOf(this.relay6.address)}`;
  }

  get connections(): number {
    return (this.relay?.counters.connections ?? 0) + (this.relay6?.counters.connections ?? 0);
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
    });
    const upstream = { host: '127.0.0.1', port: (this.http.address() as { port: number }).port };
    // A free port on 127.0.0.1 may be taken on ::1: then both relays try another one.
    for (let attempt = 1; ; attempt += 1) {
      this.relay = this.newRelay('127.0.0.1', 0, upstream);
      await this.relay.start();
      if (!this.options.ipv6) return;
      const relay6 = this.newRelay('::1', portOf(this.relay.address), upstream);
      try {
        await relay6.start();
        this.relay6 = relay6;
        return;
      } catch (error) {
        await relay6.stop();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return; // no IPv6 here: IPv4 alone
        await this.relay.stop();
        this.relay = null;
        if (attempt >= 5) throw error;
      }
    }
  }

  async stop(): Promise<void> {
    await this.relay6?.stop();
    await this.relay?.stop();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private newRelay(frontAddress: string, frontPort: number, upstream: { host: string; port: number }): Relay {
    return new Relay({
      frontAddress,
      frontPort,
      upstream,
      network: this.network,
      onUpstreamOpen: (localPort, source) => this.callers.set(localPort, source),
      onUpstreamClose: (localPort) => this.callers.delete(localPort),
    });
  }
}

function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}
