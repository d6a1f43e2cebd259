import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in provider serves next. */
export type ProviderMode =
  | { kind: 'ok'; body: string | Buffer; headers?: Record<string, string> }
  | { kind: 'garbage' }
  | { kind: 'empty' }
  | { kind: 'hang' }
  | { kind: 'huge'; megabytes: number }
  | { kind: 'status'; status: number };

/**
 * A subscription provider on 127.0.0.1 for tests: a real HTTP server whose answer can be
 * switched between a list, garbage, an empty body, a hang, a huge body and an error status.
 * Counts the requests it gets.
 */
export class ProviderServer {
  mode: ProviderMode = { kind: 'empty' };
  requests = 0;
  userAgents: string[] = [];
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();

  private constructor() {
    this.server = createServer((req, res) => this.answer(req, res));
  }

  static async start(): Promise<ProviderServer> {
    const provider = new ProviderServer();
    await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/sub/8f14e45fceea167a`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.requests++;
    this.userAgents.push(req.headers['user-agent'] ?? '');
    const mode = this.mode;
    switch (mode.kind) {
      case 'ok':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...mode.headers });
        res.end(mode.body);
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Welcome to nginx!</h1></body></html>');
        return;
      case 'empty':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end();
        return;
      case 'hang':
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      case 'status':
        res.writeHead(mode.status);
        res.end('error');
        return;
      case 'huge': {
        // Streamed without a Content-Length, the way a runaway generator would send it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(1024 * 1024, 'A');
        let sent = 0;
        const pump = () => {
          while (sent < mode.megabytes) {
            sent++;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
    }
  }
}
