import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accepts, assertPortFree, dialableHost, freePorts, PortBusyError } from './ports';

describe('ports', () => {
  it('names a port another program holds, and passes a free one', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
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

  it('dials loopback for an all-interfaces listener', () => {
    expect(dialableHost('0.0.0.0')).toBe('127.0.0.1');
    expect(dialableHost('::')).toBe('::1');
    expect(dialableHost('127.0.0.1')).toBe('127.0.0.1');
  });
});
