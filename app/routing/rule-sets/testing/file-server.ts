/**
 * A loopback HTTP server for rule-set files that a test swaps while it runs: each path answers
 * with the bytes last put there, or 404.
 */
import { createServer, type Server } from 'node:http';

export class RuleSetFileServer {
  private readonly files = new Map<string, Buffer>();
  private server: Server | null = null;
  private port = 0;
  /** Paths asked for, in order. */
  readonly requests: string[] = [];

  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.requests.push(path);
      const body = this.files.get(path);
      if (!body) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, host, resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  put(path: string, body: Buffer | string): void {
    this.files.set(path, Buffer.isBuffer(body) ? body : Buffer.from(body));
  }

  remove(path: string): void {
    this.files.delete(path);
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
