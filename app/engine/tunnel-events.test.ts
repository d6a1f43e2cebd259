import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../shared/domain/connection';
import { FakeTunnel } from './testing/fake-tunnel';
import { forwardTunnelEvents } from './tunnel-events';

const state = (name: ConnectionState['state'], serverId: string | null = 'a'): ConnectionState => ({ state: name, serverId, httpProxy: null, socksProxy: null, since: null, error: null, core: null });

function world(wanted = true, ownFetch: string | null = null) {
  const tunnel = new FakeTunnel();
  const heard: string[] = [];
  const stop = forwardTunnelEvents(tunnel, {
    auto: {
      traffic: (s) => heard.push(`auto: traffic ${s.downBytes}`),
      dialFailure: (id, kind, of) => heard.push(`auto: dial failed ${id} (${kind})${of ? ` of the ${of}` : ''}`),
      tunnelConnected: (id) => heard.push(`auto: connected ${id}`),
      tunnelDisconnected: () => heard.push('auto: disconnected'),
    },
    monitor: {
      trafficSeen: (at) => heard.push(`monitor: traffic at ${at}`),
      connectionActivity: () => heard.push('monitor: connection'),
      selectionChanged: () => heard.push('monitor: selection'),
      testFailedMember: (id) => heard.push(`monitor: test ${id}`),
    },
    ownFetch: (destination) => destination !== null && destination === ownFetch,
    log: (line) => heard.push(`log: ${line}`),
    wanted: () => wanted,
    publish: { traffic: (s) => heard.push(`window: traffic ${s.upBytes}/${s.downBytes}`), connection: (s) => heard.push(`window: ${s.state}`) },
  });
  return { tunnel, heard, stop };
}

describe('tunnel events', () => {
  it('traffic: Auto and the window hear every sample; the monitor only traffic that came back', () => {
    const w = world();
    w.tunnel.emit('traffic', { at: 1000, intervalMs: 250, upBytes: 500, downBytes: 0 });
    w.tunnel.emit('traffic', { at: 1250, intervalMs: 250, upBytes: 10, downBytes: 9000 });
    expect(w.heard).toEqual(['auto: traffic 0', 'window: traffic 500/0', 'auto: traffic 9000', 'monitor: traffic at 1250', 'window: traffic 10/9000']);
  });

  it('a failed dial is an Auto trigger, saying how it failed, and gets the server tested at once', () => {
    const w = world();
    w.tunnel.emit('dialFailure', { at: 1, serverId: 'a', kind: 'timeout', address: '192.0.2.1:443', destination: 'example.com:443', detail: 'i/o timeout', upstream: false });
    expect(w.heard).toEqual(['auto: dial failed a (timeout)', 'monitor: test a']);
  });

  it('a failed dial to the app’s own fetch through the tunnel is the destination’s: Auto hears it so, the monitor tests nothing', () => {
    const w = world(true, 'provider.example:443');
    w.tunnel.emit('dialFailure', { at: 1, serverId: 'a', kind: 'handshake', address: null, destination: 'provider.example:443', detail: 'EOF', upstream: false });
    expect(w.heard).toEqual([expect.stringMatching(/^log: the core could not reach provider\.example:443 through the current server \(handshake\).*the provider's failure, not the server's$/), 'auto: dial failed a (handshake) of the destination']);
    w.tunnel.emit('dialFailure', { at: 2, serverId: 'a', kind: 'handshake', address: null, destination: 'other.example:443', detail: 'EOF', upstream: false });
    expect(w.heard.slice(2)).toEqual(['auto: dial failed a (handshake)', 'monitor: test a']);
  });

  it('the connection: connected tells Auto and the monitor; a failure while the VPN is wanted is not a disconnect', () => {
    const w = world(true);
    w.tunnel.emit('state', state('connected'));
    w.tunnel.emit('state', state('failed'));
    w.tunnel.emit('state', state('disconnected', null));
    expect(w.heard).toEqual(['auto: connected a', 'monitor: connection', 'monitor: selection', 'window: connected', 'window: failed', 'auto: disconnected', 'window: disconnected']);
  });

  it('a failure when the user no longer wants the VPN up is a disconnect for Auto', () => {
    const w = world(false);
    w.tunnel.emit('state', state('failed'));
    expect(w.heard).toEqual(['auto: disconnected', 'window: failed']);
  });

  it('stops forwarding once unsubscribed', () => {
    const w = world();
    w.stop();
    w.tunnel.emit('state', state('connected'));
    expect(w.heard).toEqual([]);
  });
});
