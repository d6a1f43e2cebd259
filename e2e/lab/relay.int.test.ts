/**
 * The fault relay against real sockets: an echo server behind it, raw TCP clients in front,
 * real time. Every fault on new and on existing connections, from the user's address and from
 * another lab address.
 */
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LabNetwork } from './network';
import { Relay } from './relay';

const OTHER_SOURCE = '127.0.0.77';
let echo: Server;
let echoPort = 0;
let frontIndex = 0;
const relays: Relay[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  echo = createServer({ allowHalfOpen: true }, (s) => {
    s.on('error', () => undefined);
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  echoPort = (echo.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((r) => echo.close(() => r()));
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(relays.splice(0).map((r) => r.stop()));
});

async function relay(network = new LabNetwork(), latencyMs = 0): Promise<Relay> {
  frontIndex += 1;
  const r = new Relay({ frontAddress: `127.0.9.${frontIndex}`, upstream: { host: '127.0.0.1', port: echoPort }, latencyMs, network, random: Math.random });
  await r.start();
  relays.push(r);
  return r;
}

function connect(r: Relay, localAddress?: string): Promise<Socket> {
  const [host, port] = [r.address.slice(0, r.address.lastIndexOf(':')), Number(r.address.slice(r.address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = createConnection({ host, port, localAddress });
    sockets.push(s);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves with what came back within `ms` (possibly nothing). */
function collect(s: Socket, bytes: number, ms: number): Promise<{ data: string; ms: number; error: string | null }> {
  const started = performance.now();
  return new Promise((resolve) => {
    let data = '';
    const done = (error: string | null) => {
      clearTimeout(timer);
      s.off('data', onData);
      resolve({ data, ms: performance.now() - started, error });
    };
    const onData = (chunk: Buffer) => {
      data += chunk.toString();
      if (data.length >= bytes) done(null);
    };
    const timer = setTimeout(() => done('silent'), ms);
    s.on('data', onData);
    s.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
    s.once('close', () => done('closed'));
  });
}

async function roundTrip(s: Socket, text: string, ms = 2000) {
  const reply = collect(s, text.length, ms);
  s.write(text);
  return reply;
}

function connectError(r: Relay): Promise<string> {
  return connect(r).then(
    (s) => collect(s, 1, 1000).then((x) => x.error ?? 'no error'),
    (e: NodeJS.ErrnoException) => e.code ?? e.message,
  );
}

describe('Relay', () => {
  it('forwards both ways and counts connections and bytes', async () => {
    const r = await relay();
    const s = await connect(r);
    expect((await roundTrip(s, 'hello')).data).toBe('hello');
    expect(r.counters).toMatchObject({ connections: 1, active: 1, bytesUp: 5, bytesDown: 5 });
  });

  // Timing tests may retry: this machine's two cores are shared with whatever else runs.
  it('adds the latency in each direction: an echo costs 2 × latency', { retry: 2 }, async () => {
    const r = await relay(new LabNetwork(), 60);
    const s = await connect(r);
    await roundTrip(s, 'warm');
    const times: number[] = [];
    for (let i = 0; i < 5; i += 1) times.push((await roundTrip(s, `ping${i}`)).ms);
    const median = [...times].sort((a, b) => a - b)[2] as number;
    expect(Math.abs(median - 120)).toBeLessThanOrEqual(0.2 * 120 + 5);
  });

  it('applies a latency change to a connection that is already open', async () => {
    const r = await relay();
    const s = await connect(r);
    expect((await roundTrip(s, 'a')).ms).toBeLessThan(30);
    await r.setFault({ latencyMs: 100 });
    expect((await roundTrip(s, 'b')).ms).toBeGreaterThanOrEqual(195);
  });

  it('keeps the byte order under heavy jitter', async () => {
    const r = await relay();
    await r.setFault({ latencyMs: 5, jitterMs: 80 });
    const s = await connect(r);
    const parts = Array.from({ length: 60 }, (_, i) => `<${i}>`);
    const expected = parts.join('');
    const reply = collect(s, expected.length, 5000);
    for (const p of parts) {
      s.write(p);
      await new Promise((res) => setTimeout(res, 2));
    }
    expect((await reply).data).toBe(expected);
  });

  it('blackhole: a new connection is accepted, read and never answered, even after the fault lifts', async () => {
    const r = await relay();
    await r.setFault({ fault: 'blackhole' });
    const s = await connect(r);
    expect(await roundTrip(s, 'anyone?', 600)).toMatchObject({ data: '', error: 'silent' });
    await r.setFault({ fault: 'none' });
    expect(await roundTrip(s, 'still?', 300)).toMatchObject({ data: '', error: 'silent' });
    expect(r.counters.bytesUp).toBe(13);
  });

  it('blackhole: an existing connection stops forwarding, and resumes without loss when it lifts', async () => {
    const r = await relay();
    const s = await connect(r);
    expect((await roundTrip(s, 'before')).data).toBe('before');
    await r.setFault({ fault: 'blackhole' });
    const held = collect(s, 'during'.length, 3000);
    s.write('during');
    await new Promise((res) => setTimeout(res, 400));
    await r.setFault({ fault: 'none' });
    const result = await held;
    expect(result.data).toBe('during');
    expect(result.ms).toBeGreaterThanOrEqual(390);
  });

  it('reset: new connections get an RST, existing ones are reset too', async () => {
    const r = await relay();
    const existing = await connect(r);
    await roundTrip(existing, 'x');
    const watch = collect(existing, 1, 1000);
    await r.setFault({ fault: 'reset' });
    expect((await watch).error).toBe('ECONNRESET');
    expect(await connectError(r)).toBe('ECONNRESET');
  });

  it('refuse: the port is closed, existing connections dropped, and it reopens on the same address and port', async () => {
    const r = await relay();
    const address = r.address;
    const existing = await connect(r);
    await roundTrip(existing, 'x');
    const watch = collect(existing, 1, 1000);
    await r.setFault({ fault: 'refuse' });
    expect(['closed', 'ECONNRESET']).toContain((await watch).error);
    expect(await connectError(r)).toBe('ECONNREFUSED');
    await r.setFault({ fault: 'none' });
    expect(r.address).toBe(address);
    expect((await roundTrip(await connect(r), 'back')).data).toBe('back');
  });

  it('slow: caps the rate each way (default 256 kbps, or as set)', { retry: 2 }, async () => {
    const r = await relay();
    await r.setFault({ fault: 'slow' });
    expect(r.fault.bandwidthKbps).toBe(256);
    await r.setFault({ bandwidthKbps: 4000 });
    const s = await connect(r);
    const payload = 'z'.repeat(100 * 1024); // 819 200 bits = 205 ms at 4000 kbps
    const result = await roundTrip(s, payload, 5000);
    expect(result.data.length).toBe(payload.length);
    expect(result.ms).toBeGreaterThanOrEqual(195);
    expect(result.ms).toBeLessThan(700);
  });

  it('freeze: passes the first afterBytes each way, then nothing, with the connection kept open; lifting it lets the rest through', async () => {
    const r = await relay();
    await r.setFault({ fault: 'freeze', afterBytes: 1000 });
    const s = await connect(r);
    const payload = 'f'.repeat(3000);
    const frozen = await roundTrip(s, payload, 600);
    expect(frozen).toMatchObject({ error: 'silent' });
    expect(frozen.data.length).toBe(1000);
    expect(s.destroyed).toBe(false);
    const rest = collect(s, 2000, 2000);
    await r.setFault({ fault: 'none' });
    expect((await rest).data.length).toBe(2000);
  });

  it('freeze: an open connection that already carried more than afterBytes goes silent at once', async () => {
    const r = await relay();
    const s = await connect(r);
    expect((await roundTrip(s, 'x'.repeat(2000))).data.length).toBe(2000);
    await r.setFault({ fault: 'freeze', afterBytes: 1000 });
    expect(await roundTrip(s, 'more', 400)).toMatchObject({ data: '', error: 'silent' });
    expect(r.fault).toMatchObject({ fault: 'freeze', afterBytes: 1000 });
  });

  it('throttle: caps each way at bytesPerSecond (default 12 KB/s)', { retry: 2 }, async () => {
    const r = await relay();
    await r.setFault({ fault: 'throttle' });
    expect(r.fault.bytesPerSecond).toBe(12 * 1024);
    await r.setFault({ bytesPerSecond: 50_000 });
    const s = await connect(r);
    const payload = 't'.repeat(20_000); // 400 ms at 50 000 B/s
    const result = await roundTrip(s, payload, 5000);
    expect(result.data.length).toBe(payload.length);
    expect(result.ms).toBeGreaterThanOrEqual(380);
    expect(result.ms).toBeLessThan(1500);
  });

  it('flap: new connections fail in down phases and work in up phases; existing ones pause and resume', { retry: 2 }, async () => {
    const r = await relay();
    await r.setFault({ fault: 'flap', periodMs: 400 });
    const started = performance.now();
    const down = await connect(r);
    expect((await roundTrip(down, 'x', 250)).error).toBe('silent');
    await new Promise((res) => setTimeout(res, started + 450 - performance.now()));
    const up = await connect(r);
    expect((await roundTrip(up, 'up')).data).toBe('up');
    // Next down phase starts at 800 ms: a message sent then arrives after 1200 ms.
    await new Promise((res) => setTimeout(res, started + 850 - performance.now()));
    const held = await roundTrip(up, 'held', 2000);
    expect(held.data).toBe('held');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1190);
  });

  it('blocked-here: blackholes the user address and passes other lab addresses', async () => {
    const r = await relay();
    await r.setFault({ fault: 'blocked-here' });
    expect((await roundTrip(await connect(r), 'me', 500)).error).toBe('silent');
    expect((await roundTrip(await connect(r, OTHER_SOURCE), 'other')).data).toBe('other');
  });

  it('network offline: the user side is blackholed (new and existing), other sources pass, online resumes', async () => {
    const network = new LabNetwork();
    const r = await relay(network);
    const existing = await connect(r);
    await roundTrip(existing, 'x');
    network.set('offline');
    expect((await roundTrip(await connect(r), 'new', 400)).error).toBe('silent');
    expect((await roundTrip(await connect(r, OTHER_SOURCE), 'other')).data).toBe('other');
    const held = collect(existing, 'queued'.length, 3000);
    existing.write('queued');
    await new Promise((res) => setTimeout(res, 300));
    network.set('online');
    expect((await held).data).toBe('queued');
  });

  it('passes a half-close through after the data ahead of it', async () => {
    const r = await relay(new LabNetwork(), 30);
    const s = await connect(r);
    const ended = new Promise<void>((res) => s.once('end', () => res()));
    const reply = collect(s, 4, 2000);
    s.end('last');
    expect((await reply).data).toBe('last');
    await ended;
  });

  it('stop closes the listener and every connection', async () => {
    const r = await relay();
    const s = await connect(r);
    const watch = collect(s, 1, 2000);
    relays.splice(relays.indexOf(r), 1);
    await r.stop();
    expect((await watch).error).toBe('closed');
    expect(await connectError(r)).toBe('ECONNREFUSED');
  });
});
