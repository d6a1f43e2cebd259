/**
 * An HTTP service behind a relay with no injected distance, so it obeys the lab's network switch
 * (offline = the user's connections are blackholed, new and existing) exactly like the server
 * relays. The relay tells us who really called, so handlers see the caller's source address (a
 * server's exit IP when the request came through a lab server).
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
  private readonly callers = new Map<number, string>();
  private readonly sockets = new Set<Socket>();

  constructor(
    handler: Handler,
    private readonly network: LabNetwork,
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

  get connections(): number {
    return this.relay?.counters.connections ?? 0;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
    });
    this.relay = new Relay({
      frontAddress: '127.0.0.1',
      upstream: { host: '127.0.0.1', port: (this.http.address() as { port: number }).port },
      network: this.network,
      onUpstreamOpen: (localPort, source) => this.callers.set(localPort, source),
      onUpstreamClose: (localPort) => this.callers.delete(localPort),
    });
    await this.relay.start();
  }

  async stop(): Promise<void> {
    await this.relay?.stop();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
