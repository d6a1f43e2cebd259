import { describe, expect, it } from 'vitest';
import { forwardNetworkChange } from './network-changes';

describe('an OS network change', () => {
  it.each([
    ['a new network', { state: 'up' as const, addresses: ['192.0.2.7'] }, 'network changed: 1 address(es)'],
    ['the network going away', { state: 'none' as const, addresses: [] }, 'network changed: no network'],
  ])('%s reaches Auto and has the monitor retest every server (seed 000: 2 s after the last change of any kind)', (_name, change, line) => {
    const heard: string[] = [];
    forwardNetworkChange(change, {
      auto: { networkChanged: (state) => heard.push(`auto ${state}`) },
      monitor: { networkChanged: () => heard.push('monitor') },
      log: (l) => heard.push(l),
    });
    expect(heard).toEqual([line, `auto ${change.state}`, 'monitor']);
  });
});
