/**
 * The control API: JSON over HTTP on 127.0.0.1, the table of ../shared/spec/lab.md. It never obeys
 * the network switch (tests must be able to bring the network back).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { LabController } from './controller';
import { LabError } from './controller';

const MAX_BODY_BYTES = 1024 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new LabError(413, `body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new LabError(400, 'body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}

export class ControlServer {
  private readonly http: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly controller: LabController) {
    this.http = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => {
        if (error instanceof LabError) send(res, error.status, { error: error.message });
        else send(res, 500, { error: error instanceof Error ? error.message : String(error) });
      });
    });
    this.http.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as { port: number }).port}`;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://control.invalid');
    const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method ?? 'GET';
    const [head, arg, ...rest] = parts;
    const expect = (wanted: string) => {
      if (method !== wanted) throw new LabError(405, `${pathname} takes ${wanted}`);
    };
    if (rest.length > 0) throw new LabError(404, `no such control path: ${pathname}`);
    if (head === 'state' && arg === undefined) {
      expect('GET');
      return send(res, 200, this.controller.state());
    }
    if (head === 'counters' && arg === undefined) {
      expect('GET');
      return send(res, 200, this.controller.counters());
    }
    if (head === 'network' && arg === undefined) {
      expect('POST');
      this.controller.setNetwork(await readBody(req));
      return send(res, 200, { ok: true, network: this.controller.state().network });
    }
    if (head === 'servers' && arg !== undefined) {
      expect('POST');
      const server = await this.controller.setFault(arg, await readBody(req));
      return send(res, 200, { ok: true, server });
    }
    if (head === 'subscriptions' && arg !== undefined) {
      expect('POST');
      const subscription = this.controller.setSubscription(arg, await readBody(req));
      return send(res, 200, { ok: true, subscription });
    }
    if (head === 'ipinfo' && arg !== undefined) {
      expect('POST');
      const mode = this.controller.setIpInfo(arg, await readBody(req));
      return send(res, 200, { ok: true, service: arg, mode });
    }
    throw new LabError(404, `no such control path: ${method} ${pathname}`);
  }
}
