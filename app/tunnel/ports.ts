/**
 * Loopback ports for the cores: free ones for the stats API and the prober's inbounds, a clear
 * error when a port the user chose is taken, and "is it accepting yet" for readiness.
 */
import { readFileSync } from 'node:fs';
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
 * Where the cores' own ports are picked: below the range the OS hands out by itself, to every
 * outgoing connection and to every listener on port 0. A port picked from that range is free when
 * picked and then closed until the core binds it, and meanwhile any of the machine's outgoing
 * connections (a browser's, the cores' own to their servers) may take it: the core then fails to
 * start. Below it, only a program that binds that very port can. It starts at 20000, clear of the
 * app's own defaults (10808, 10809) and the usual services' ports.
 */
export function pickRange(ephemeralLow = ephemeralRangeStart()): { from: number; to: number } {
  const to = Math.max(ephemeralLow - 1, PICK_FROM + 1000);
  return { from: PICK_FROM, to };
}

const PICK_FROM = 20_000;

/** The first port of the OS's ephemeral range: Linux says; Windows and macOS use IANA's 49152. */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > PICK_FROM + 1000 && low <= 65535) return low;
  } catch {
    // not Linux: the IANA dynamic range
  }
  return 49_152;
}

/**
 * `count` distinct ports free on `host` right now, drawn at random from `pickRange()` (see there
 * why not from port 0), each bound once to be sure, in batches held open together (so a batch has
 * no repeats, and a thousand servers do not need a thousand file descriptors at once). Another
 * program could still bind one before the core does; the core then fails to start with a "failed
 * to listen" line, which is reported. If the range is nearly full, the OS's own choice is taken.
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const { from, to } = pickRange();
  const ports = new Set<number>();
  let tries = 0;
  const maxTries = count * 20 + 200;
  while (ports.size < count) {
    const servers: Server[] = [];
    try {
      const batch = Math.min(FREE_PORT_BATCH, count - ports.size);
      while (servers.length < batch) {
        const fromRange = tries++ < maxTries;
        const candidate = fromRange ? from + Math.floor(Math.random() * (to - from + 1)) : 0;
        if (ports.has(candidate)) continue;
        const server = await listenOn(candidate, host).catch((error: NodeJS.ErrnoException) => {
          if (fromRange && (error.code === 'EADDRINUSE' || error.code === 'EACCES')) return null;
          throw error;
        });
        if (server) servers.push(server);
      }
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
