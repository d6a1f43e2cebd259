import { describe, expect, it } from 'vitest';
import { ServerIndex } from './server-index';
import { FakeTunnel } from './testing/fake-tunnel';
import { subscriptionOf, vlessServer } from './testing/servers';
import { TunnelDriver } from './tunnel-driver';

function world() {
  const tunnel = new FakeTunnel();
  const index = new ServerIndex();
  index.rebuild([subscriptionOf('s1', [vlessServer('a', 's1'), vlessServer('b', 's1')])]);
  return { tunnel, driver: new TunnelDriver(() => tunnel, index, () => 'no core') };
}

describe('TunnelDriver', () => {
  it("Auto's choice while the VPN is off only sets the server the next Connect uses", async () => {
    const w = world();
    await w.driver.switchTo('b');
    expect(w.tunnel.starts).toEqual([]);
    expect(w.driver.current()).toBe('b');
    await w.driver.connect('b');
    expect(w.tunnel.starts.map((s) => s.serverId)).toEqual(['b']);
  });

  it('a connect to the server already up keeps its core; a reconnect starts it again on that server', async () => {
    const w = world();
    await w.driver.connect('a');
    await w.driver.connect('a');
    expect(w.tunnel.starts).toHaveLength(1);
    await w.driver.reconnect();
    expect(w.tunnel.starts.map((s) => s.serverId)).toEqual(['a', 'a']);
  });

  it('a reconnect while the VPN is off starts nothing', async () => {
    const w = world();
    await w.driver.connect('a');
    await w.driver.disconnect();
    await w.driver.reconnect();
    expect(w.tunnel.starts).toHaveLength(1);
  });

  it('two asks for the same server while it connects make one core start', async () => {
    const w = world();
    await Promise.all([w.driver.connect('a'), w.driver.switchTo('a')]);
    expect(w.tunnel.starts).toHaveLength(1);
  });

  it('without a core, Connect fails with the reason', async () => {
    const index = new ServerIndex();
    const driver = new TunnelDriver(() => null, index, () => 'no v2ray or Xray core was found');
    await expect(driver.connect('a')).rejects.toThrow('no v2ray or Xray core was found');
  });
});
