/**
 * Free ports for processes that cannot report theirs (v2ray's inbounds): bind port 0, read the
 * port back, and hold every socket until all are chosen so no two are the same.
 */
import { type Server, createServer } from 'node:net';

export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port: 0, exclusive: true }, () => resolve());
      });
      ports.push((server.address() as { port: number }).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
