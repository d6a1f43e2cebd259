/**
 * The UDP fault relay against real sockets: a UDP echo server behind it, UDP clients in front
 * (from the user's address and from another lab address), real time. Every fault in its datagram
 * form, on the relay's single port and on a hopping range.
 */
import { type Socket, createSocket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LabNetwork } from './network';
import { UdpRelay } from './relay-udp';

const OTHER_SOURCE = '127.0.0.77';
let echo: Socket;
let echoPort = 0;
let frontIndex = 0;
const relays: UdpRelay[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  echo = createSocket('udp4');
  echo.on('message', (message, remote) => echo.send(message, remote.port, remote.address));
  await new Promise<void>((r) => echo.bind(0, '127.0.0.1', () => r()));
  echoPort = echo.address().port;
});

afterAll(() => new Promise<void>((r) => echo.close(() => r())));

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(relays.splice(0).map((r) => r.stop()));
});

async function relay(options: { network?: LabNetwork; latencyMs?: number; portCount?: number } = {}): Promise<UdpRelay> {
  frontIndex += 1;
  const r = new UdpRelay({
    frontAddress: `127.0.10.${frontIndex}`,
    upstream: { host: '127.0.0.1', port: echoPort },
    latencyMs: options.latencyMs ?? 0,
    portCount: options.portCount,
    network: options.network ?? new LabNetwork(),
    random: Math.random,
  });
  await r.start();
  relays.push(r);
  return r;
}

interface Client {
  socket: Socket;
  /** Sends `text` to the relay's port `port` (default its first). */
  send(text: string, port?: number): void;
  /** What came back within `ms`, in order. */
  receive(count: number, ms: number): Promise<{ messages: string[]; error: string | null; ms: number }>;
}

/** A connected client socket: ICMP port unreachable surfaces on it as ECONNREFUSED. */
async function client(r: UdpRelay, localAddress = '127.0.0.1', port = r.frontPorts[0]!): Promise<Client> {
  const socket = createSocket('udp4');
  clients.push(socket);
  const messages: string[] = [];
  const errors: string[] = [];
  socket.on('message', (m) => messages.push(m.toString('utf8')));
  socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
  await new Promise<void>((resolve) => socket.bind(0, localAddress, () => resolve()));
  const host = r.address.slice(0, r.address.lastIndexOf(':'));
  return {
    socket,
    send: (text, to = port) => socket.send(text, to, host, (e) => e && errors.push((e as NodeJS.ErrnoException).code ?? e.message)),
    receive: async (count, ms) => {
      const started = performance.now();
      while (messages.length < count && errors.length === 0 && performance.now() - started < ms) await new Promise((r) => setTimeout(r, 5));
      return { messages: messages.splice(0), error: errors[0] ?? null, ms: performance.now() - started };
    },
  };
}

/** A client socket connected to the relay's first port: the kernel reports ICMP unreachable on it. */
async function connectedClient(r: UdpRelay): Promise<{ send(text: string): void; error(ms: number): Promise<string | null> }> {
  const socket = createSocket('udp4');
  clients.push(socket);
  const errors: string[] = [];
  socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
  const host = r.address.slice(0, r.address.lastIndexOf(':'));
  await new Promise<void>((resolve) => socket.connect(r.frontPorts[0]!, host, () => resolve()));
  return {
    send: (text) => socket.send(text, (e) => e && errors.push((e as NodeJS.ErrnoException).code ?? e.message)),
    error: async (ms) => {
      const started = performance.now();
      while (errors.length === 0 && performance.now() - started < ms) await new Promise((r) => setTimeout(r, 5));
      return errors[0] ?? null;
    },
  };
}

describe('UDP relay', () => {
  it('passes datagrams both ways when healthy and counts sessions and bytes', async () => {
    const r = await relay();
    const c = await client(r);
    c.send('one');
    c.send('two');
    expect((await c.receive(2, 2000)).messages).toEqual(['one', 'two']);
    expect(r.counters).toMatchObject({ connections: 1, active: 1, bytesUp: 6, bytesDown: 6 });
    const other = await client(r, OTHER_SOURCE);
    other.send('three');
    expect((await other.receive(1, 2000)).messages).toEqual(['three']);
    expect(r.counters.connections).toBe(2);
  });

  it('adds the latency to each datagram in each direction', async () => {
    const r = await relay({ latencyMs: 80 });
    const c = await client(r);
    const started = performance.now();
    c.send('ping');
    const got = await c.receive(1, 3000);
    expect(got.messages).toEqual(['ping']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(155);
    expect(performance.now() - started).toBeLessThan(600);
  });

  it('blackhole: datagrams are taken in and never answered; lifting it lets new ones through', async () => {
    const r = await relay();
    const c = await client(r);
    await r.setFault({ fault: 'blackhole' });
    c.send('lost');
    const got = await c.receive(1, 400);
    expect(got.messages).toEqual([]);
    expect(got.error).toBeNull();
    expect(r.counters.bytesUp).toBe(4);
    expect(r.counters.bytesDown).toBe(0);
    await r.setFault({ fault: 'none' });
    c.send('back');
    expect((await c.receive(1, 2000)).messages).toEqual(['back']);
  });

  it.each(['reset', 'refuse'] as const)('%s: the port is closed, the kernel answers ICMP port unreachable (ECONNREFUSED at once); lifting it reopens the same port', async (fault) => {
    const r = await relay();
    const port = r.frontPorts[0];
    await r.setFault({ fault });
    const c = await connectedClient(r);
    c.send('x');
    c.send('y'); // the error of the first shows on the next send or receive
    const started = performance.now();
    expect(await c.error(1000)).toBe('ECONNREFUSED');
    expect(performance.now() - started).toBeLessThan(500);
    await r.setFault({ fault: 'none' });
    expect(r.frontPorts[0]).toBe(port);
    const again = await client(r);
    again.send('open');
    expect((await again.receive(1, 2000)).messages).toEqual(['open']);
  });

  it('blocked-here drops only the user’s datagrams; another lab address passes', async () => {
    const r = await relay();
    await r.setFault({ fault: 'blocked-here' });
    const user = await client(r);
    const other = await client(r, OTHER_SOURCE);
    user.send('user');
    other.send('other');
    expect((await other.receive(1, 2000)).messages).toEqual(['other']);
    expect((await user.receive(1, 300)).messages).toEqual([]);
  });

  it('network offline drops the user’s datagrams, online restores', async () => {
    const network = new LabNetwork();
    const r = await relay({ network });
    const c = await client(r);
    network.set('offline');
    c.send('gone');
    expect((await c.receive(1, 300)).messages).toEqual([]);
    network.set('online');
    c.send('here');
    expect((await c.receive(1, 2000)).messages).toEqual(['here']);
  });

  it('freeze passes the first afterBytes of a session each way, then drops everything, the port still open', async () => {
    const r = await relay();
    await r.setFault({ fault: 'freeze', afterBytes: 2500 });
    const c = await client(r);
    const block = 'x'.repeat(1000);
    for (let k = 0; k < 4; k += 1) c.send(block);
    const got = await c.receive(4, 600);
    expect(got.messages).toHaveLength(2);
    expect(got.error).toBeNull();
    expect(r.counters.bytesUp).toBe(4000);
    expect(r.counters.bytesDown).toBe(2000);
  });

  it('throttle caps the rate: a burst trickles through at about bytesPerSecond and the excess is dropped', async () => {
    const r = await relay();
    await r.setFault({ fault: 'throttle', bytesPerSecond: 10_000 });
    const c = await client(r);
    const block = 'y'.repeat(1000);
    for (let k = 0; k < 20; k += 1) c.send(block);
    const got = await c.receive(20, 1500);
    // the up lane delivers about 0.5 s of queue (5 datagrams) plus the first, the rest is dropped
    expect(got.messages.length).toBeGreaterThanOrEqual(4);
    expect(got.messages.length).toBeLessThanOrEqual(8);
  });

  it('flap starts down, then passes in its up phase', async () => {
    const r = await relay();
    await r.setFault({ fault: 'flap', periodMs: 400 });
    const c = await client(r);
    c.send('down');
    expect((await c.receive(1, 250)).messages).toEqual([]);
    await new Promise((res) => setTimeout(res, 250));
    c.send('up');
    expect((await c.receive(1, 1000)).messages).toEqual(['up']);
  });

  it('a hopping range: every front port leads to the one server, answers leave from the port sent to, one session per client', async () => {
    const r = await relay({ portCount: 4 });
    const ports = r.frontPorts;
    expect(ports).toHaveLength(4);
    expect(ports.every((p, k) => p === ports[0]! + k)).toBe(true);
    const c = await client(r);
    const from: number[] = [];
    c.socket.on('message', (_m, remote) => from.push(remote.port));
    for (const port of ports) {
      c.send(`via-${port}`, port);
      expect((await c.receive(1, 2000)).messages).toEqual([`via-${port}`]);
    }
    expect(from).toEqual(ports);
    expect(r.counters.connections).toBe(1);
    expect(r.counters.datagramsByPort).toEqual(Object.fromEntries(ports.map((p) => [p, 1])));
  });
});

describe('UDP relay: datagrams in flight', () => {
  it('a datagram still delayed when a blackhole starts is lost, not delivered late', async () => {
    const r = await relay({ latencyMs: 150 });
    const c = await client(r);
    c.send('in-flight');
    await new Promise((res) => setTimeout(res, 50));
    await r.setFault({ fault: 'blackhole' });
    expect((await c.receive(1, 500)).messages).toEqual([]);
    expect(r.counters.bytesDown).toBe(0);
  });
});
