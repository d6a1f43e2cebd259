import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { type NetworkChange, NetworkWatcher } from './watcher';

const lo = [{ address: '127.0.0.1', internal: true, family: 'IPv4' }] as NetworkInterfaceInfo[];
const wifi = (address: string) => [{ address, internal: false, family: 'IPv4' }] as NetworkInterfaceInfo[];

function world(initial: NodeJS.Dict<NetworkInterfaceInfo[]>) {
  let table = initial;
  const clock = new FakeClock();
  const watcher = new NetworkWatcher(clock, () => table, 2000);
  const changes: NetworkChange[] = [];
  watcher.onChange((c) => changes.push(c));
  return { clock, watcher, changes, set: (t: NodeJS.Dict<NetworkInterfaceInfo[]>) => void (table = t) };
}

describe('NetworkWatcher', () => {
  it('reports a Wi-Fi to mobile switch as a change with the network up', async () => {
    const w = world({ lo, wlan0: wifi('192.168.1.5') });
    w.watcher.start();
    w.set({ lo, wwan0: wifi('10.20.30.40') });
    await w.clock.advance(2000);
    expect(w.changes).toEqual([{ state: 'up', addresses: ['10.20.30.40'] }]);
  });

  it('reports no network when the last external address goes, and up when one returns', async () => {
    const w = world({ lo, wlan0: wifi('192.168.1.5') });
    w.watcher.start();
    w.set({ lo });
    await w.clock.advance(2000);
    expect(w.watcher.state()).toBe('none');
    w.set({ lo, wlan0: wifi('192.168.1.5') });
    await w.clock.advance(2000);
    expect(w.changes.map((c) => c.state)).toEqual(['none', 'up']);
  });

  it('never reports offline on a machine that never had an external address', async () => {
    const w = world({ lo });
    w.watcher.start();
    await w.clock.advance(10_000);
    expect(w.watcher.state()).toBe('up');
    expect(w.changes).toEqual([]);
  });

  it('ignores link-local IPv6 churn and stays quiet when nothing changed', async () => {
    const w = world({ lo, eth0: wifi('192.0.2.2') });
    w.watcher.start();
    w.set({ lo, eth0: [...wifi('192.0.2.2'), { address: 'fe80::1', internal: false, family: 'IPv6' } as NetworkInterfaceInfo] });
    await w.clock.advance(6000);
    expect(w.changes).toEqual([]);
  });
});
