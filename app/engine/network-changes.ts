/**
 * Where an OS network change goes. Auto hears every change (a change lifts its network-loss
 * pause; "none" stops its checks). The monitor retests all servers 2 s after the last change of
 * any kind (seed 000): a network going away is a change too, and the tests it cut are rerun.
 */
import type { NetworkChange } from '../network/watcher';

export interface NetworkChangeTargets {
  auto: { networkChanged(state: NetworkChange['state']): void };
  monitor: { networkChanged(): void };
  log: (line: string) => void;
}

export function forwardNetworkChange(change: NetworkChange, targets: NetworkChangeTargets): void {
  targets.log(`network changed: ${change.state === 'none' ? 'no network' : `${change.addresses.length} address(es)`}`);
  targets.auto.networkChanged(change.state);
  targets.monitor.networkChanged();
}
