import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accepts, assertPortFree, dialableHost, freePorts, pickRange, PortBusyError } from './ports';

describe('ports', () => {
  it('names a port another program holds, and passes a free one', async () => {
    // A port of the picking range: one from the OS's own range may be taken by any outgoing
    // connection on the machine as soon as it is closed, which is what the range avoids.
    const holder = createServer();
    const [picked] = await freePorts(1);
    await new Promise<void>((r) => holder.listen(picked, '127.0.0.1', () => r()));
    const { port } = holder.address() as AddressInfo;
    try {
      await expect(assertPortFree(port, '127.0.0.1', 'HTTP proxy')).rejects.toThrow(PortBusyError);
      await expect(assertPortFree(port, '127.0.0.1', 'HTTP proxy')).rejects.toThrow(`Port ${port} on 127.0.0.1 (HTTP proxy) is already in use`);
      expect(await accepts(port)).toBe(true);
    } finally {
      holder.close();
    }
    await new Promise((r) => setTimeout(r, 10));
    await expect(assertPortFree(port, '127.0.0.1', 'HTTP proxy')).resolves.toBeUndefined();
    expect(await accepts(port)).toBe(false);
  });

  it('hands out distinct free ports, more than one batch of them', async () => {
    const ports = await freePorts(450);
    expect(new Set(ports).size).toBe(450);
    await Promise.all(ports.slice(0, 5).map((p) => assertPortFree(p, '127.0.0.1', 'test')));
  });

  it('picks below the range the OS hands to outgoing connections, clear of the app’s own default ports', async () => {
    const { from, to } = pickRange(32768);
    expect([from, to]).toEqual([20000, 32767]);
    expect(from).toBeGreaterThan(10809);
    // A machine whose ephemeral range starts low still gets a range of its own to pick from.
    expect(pickRange(15000)).toEqual({ from: 20000, to: 21000 });
    const ports = await freePorts(300);
    const range = pickRange();
    expect(ports.every((p) => p >= range.from && p <= range.to)).toBe(true);
  });

  it('skips a port another program holds', async () => {
    const { from } = pickRange();
    const holders = await Promise.all(
      Array.from({ length: 200 }, (_, i) => new Promise<ReturnType<typeof createServer> | null>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(null));
        s.listen(from + i, '127.0.0.1', () => resolve(s));
      })),
    );
    try {
      const held = new Set(holders.flatMap((h) => (h ? [(h.address() as AddressInfo).port] : [])));
      const ports = await freePorts(500);
      expect(ports.filter((p) => held.has(p))).toEqual([]);
    } finally {
      await Promise.all(holders.map((h) => new Promise((r) => (h ? h.close(r) : r(null)))));
    }
  });

  it('dials loopback for an all-interfaces listener', () => {
    expect(dialableHost('0.0.0.0')).toBe('127.0.0.1');
    expect(dialableHost('::')).toBe('::1');
    expect(dialableHost('127.0.0.1')).toBe('127.0.0.1');
  });
});
