import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { Clock, TimerHandle } from '../clock';
import { Signal } from '../events';

export type NetworkState = 'up' | 'none';

export interface NetworkChange {
  state: NetworkState;
  /** The external addresses now, sorted (for logs; no MAC addresses). */
  addresses: string[];
}

type InterfaceTable = NodeJS.Dict<NetworkInterfaceInfo[]>;

/**
 * The OS's view of the network, as far as Node can tell: the set of non-loopback addresses.
 * A change of that set (Wi-Fi ↔ mobile, a new DHCP lease, a VPN adapter of another app) is a
 * network change; an empty set after a non-empty one is "no network". A machine that never had an
 * external address (a container, the lab) is never reported as offline: we cannot know, and
 * reporting "none" would stop Auto from ever checking.
 */
export class NetworkWatcher {
  private last: string[] | null = null;
  private sawExternal = false;
  private timer: TimerHandle | null = null;
  private readonly changes = new Signal<NetworkChange>('network');

  constructor(
    private readonly clock: Clock,
    private readonly readInterfaces: () => InterfaceTable = networkInterfaces,
    private readonly pollMs = 2000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.last = externalAddresses(this.readInterfaces());
    this.sawExternal = this.last.length > 0;
    const tick = () => {
      this.poll();
      this.timer = this.clock.after(this.pollMs, tick);
    };
    this.timer = this.clock.after(this.pollMs, tick);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** 'none' only when the OS clearly has no network now. */
  state(): NetworkState {
    return this.sawExternal && this.last !== null && this.last.length === 0 ? 'none' : 'up';
  }

  onChange(listener: (change: NetworkChange) => void): () => void {
    return this.changes.on(listener);
  }

  /** Reads the interfaces once and reports a change if there was one. */
  poll(): void {
    const now = externalAddresses(this.readInterfaces());
    const before = this.last;
    this.last = now;
    if (now.length > 0) this.sawExternal = true;
    if (before !== null && sameList(before, now)) return;
    const change: NetworkChange = { state: this.state(), addresses: now };
    this.changes.emit(change);
  }
}

export function externalAddresses(table: InterfaceTable): string[] {
  const out: string[] = [];
  for (const entries of Object.values(table)) {
    for (const entry of entries ?? []) {
      // Link-local IPv6 addresses come and go with no meaning for reachability.
      if (entry.internal || entry.address.startsWith('fe80:')) continue;
      out.push(entry.address);
    }
  }
  return out.sort();
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
