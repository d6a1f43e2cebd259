/**
 * Loopback ports for the cores: free ones for the stats API and the prober's inbounds, a clear
 * error when a port the user chose is taken, and "is it accepting yet" for readiness.
 */
import { connect, createServer, type Server } from 'node:net';

/** The port the user configured is held by another program. */
export class PortBusyError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
    readonly purpose: string,
  ) {
    super(`Port ${port} on ${host} (${purpose}) is already in use by another program. Choose another port in Settings, or close the program using it.`);
    this.name = 'PortBusyError';
  }
}

function listenOn(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Throws PortBusyError when `port` cannot be bound on `host` right now. */
export async function assertPortFree(port: number, host: string, purpose: string): Promise<void> {
  let server: Server;
  try {
    server = await listenOn(port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new PortBusyError(port, host, purpose);
    throw error;
  }
  await close(server);
}

/**
 * `count` distinct ports free on `host` right now. They are picked in batches of listeners held
 * open together (so a batch has no repeats, and a thousand servers do not need a thousand file
 * descriptors at once), repeats across batches skipped. Another program could take one before
 * the core binds it; the core then fails to start with a "failed to listen" line, which is
 * reported.
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const servers: Server[] = [];
    try {
      const batch = Math.min(FREE_PORT_BATCH, count - ports.size);
      for (let i = 0; i < batch; i++) servers.push(await listenOn(0, host));
      for (const s of servers) {
        const address = s.address();
        if (!address || typeof address === 'string') throw new Error('no port assigned');
        ports.add(address.port);
      }
    } finally {
      await Promise.all(servers.map(close));
    }
  }
  return [...ports].slice(0, count);
}

const FREE_PORT_BATCH = 200;

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(1, host);
  return port as number;
}

/** Whether something accepts TCP connections on host:port (one attempt). */
export function accepts(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The address a local client dials for a listener bound to `listen` (0.0.0.0 → 127.0.0.1). */
export function dialableHost(listen: string): string {
  if (listen === '0.0.0.0' || listen === '') return '127.0.0.1';
  if (listen === '::') return '::1';
  return listen;
}
