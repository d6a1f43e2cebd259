import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeSocket, startWsHost, type WsHost } from '../testing/ws-host.mjs';
import { reconnectDelayMs } from './backoff';
import { createWebSocketClient, type LinkState, type SocketLike, type WebSocketClient } from './websocket';

let host: WsHost | null = null;
let client: WebSocketClient | null = null;

afterEach(async () => {
  client?.close();
  client = null;
  await host?.close();
  host = null;
  vi.useRealTimers();
});

/** A host that answers getSnapshot with a counter and echoes everything else. */
async function echoHost(): Promise<WsHost> {
  let snapshots = 0;
  host = await startWsHost({
    answer: (channel, payload) => {
      if (channel === 'getSnapshot') return { snapshot: ++snapshots };
      if (channel === 'connect') throw new Error('invalid connect request: serverId: Too small');
      if (channel === 'shareLink') throw Object.assign(new Error('no server with id "gone"'), { code: 'no-such-server' });
      if (channel === 'labControl') throw Object.assign(new Error('the moon is in the way'), { code: 'moon-in-the-way' });
      return { channel, payload };
    },
  });
  return host;
}

function linkStates(c: WebSocketClient): LinkState[] {
  const states: LinkState[] = [];
  c.onLink((state) => states.push(state));
  return states;
}

describe('the WebSocket client against a real socket', () => {
  it('frames calls as {kind:"invoke", id, channel, payload} and resolves each with its own answer', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    const [a, b] = await Promise.all([client.testServer({ serverId: 'fi' }), client.setAuto({ subscriptionId: 'A' })]);
    expect(a).toEqual({ channel: 'testServer', payload: { serverId: 'fi' } });
    expect(b).toEqual({ channel: 'setAuto', payload: { subscriptionId: 'A' } });
    expect(h.received.map(({ kind, channel, payload }) => ({ kind, channel, payload }))).toEqual([
      { kind: 'invoke', channel: 'testServer', payload: { serverId: 'fi' } },
      { kind: 'invoke', channel: 'setAuto', payload: { subscriptionId: 'A' } },
    ]);
    const ids = h.received.map((m) => m.id);
    expect(new Set(ids).size).toBe(2);
    // The socket asks for the snapshot as its first frame.
    expect(h.received[0]?.url).toBe('/ws?token=t0k&snapshot=on-open');
  });

  it('the first getSnapshot is answered by the snapshot the host pushes on connect, asked before or after it came; a later one asks', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    const events: unknown[] = [];
    client.on('snapshot', (s) => events.push(s));
    // Asked while the socket is still opening: no request goes out, the push answers it.
    await expect(client.getSnapshot({})).resolves.toEqual({ snapshot: 1 });
    expect(h.received.filter((m) => m.channel === 'getSnapshot')).toHaveLength(0);
    // Asked again: the push is spent, so this one goes to the host for a fresh picture.
    await expect(client.getSnapshot({})).resolves.toEqual({ snapshot: 2 });
    expect(h.received.filter((m) => m.channel === 'getSnapshot')).toHaveLength(1);
    // The first socket's push is the app's answer, not an event (it would be applied twice).
    expect(events).toEqual([]);

    const late = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    try {
      await vi.waitFor(() => expect(late.link).toBe('open'));
      await new Promise((r) => setTimeout(r, 50)); // the push has come and waits for the app
      await expect(late.getSnapshot({})).resolves.toEqual({ snapshot: 3 });
      expect(h.received.filter((m) => m.channel === 'getSnapshot')).toHaveLength(1);
    } finally {
      late.close();
    }
  });

  it('rejects a call the host refused with the host’s message', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    await expect(client.connect({ serverId: '' })).rejects.toThrow('invalid connect request: serverId: Too small');
  });

  it('a refusal with a code arrives as an EngineRefusal with the code and the host’s words; an unknown code is dropped', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    await expect(client.shareLink({ serverId: 'gone' })).rejects.toMatchObject({ name: 'EngineRefusal', code: 'no-such-server', message: 'no server with id "gone"' });
    // A newer host's code this build cannot name: the words alone, as from a host that sends no code.
    const unknown = await client.labControl({ action: 'network', state: 'offline' }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ message: 'the moon is in the way' });
    expect(unknown).not.toHaveProperty('code');
    const older = await client.connect({ serverId: '' }).catch((error: unknown) => error);
    expect(older).not.toHaveProperty('code');
  });

  it('hands events to their listeners and stops after unsubscribe', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    await client.getSnapshot({});
    const seen: unknown[] = [];
    const off = client.on('testProgress', (p) => seen.push(p));
    const other: unknown[] = [];
    client.on('auto', (p) => other.push(p));
    h.broadcast('testProgress', { running: true, done: 1, total: 3 });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    off();
    h.broadcast('testProgress', { running: true, done: 2, total: 3 });
    h.sendRaw('not json');
    h.broadcast('auto', { subscriptionId: null });
    await vi.waitFor(() => expect(other).toHaveLength(1));
    expect(seen).toEqual([{ running: true, done: 1, total: 3 }]);
  });

  it('rejects pending calls with a clear error when the link drops, reconnects and re-fetches the snapshot', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url, random: () => 0 });
    const states = linkStates(client);
    const snapshots: unknown[] = [];
    client.on('snapshot', (s) => snapshots.push(s));
    await client.getSnapshot({}); // snapshot 1, asked by the app itself
    h.holdAnswers();
    const pending = client.testAll({});
    await vi.waitFor(() => expect(h.received.at(-1)?.channel).toBe('testAll'));
    h.dropAll();
    await expect(pending).rejects.toThrow(/Lost the connection to the app.*reconnecting/);
    h.release();
    await vi.waitFor(() => expect(snapshots).toEqual([{ snapshot: 2 }]), { timeout: 3000 });
    expect(states).toEqual(['open', 'reconnecting', 'open']);
    expect(client.link).toBe('open');
    await expect(client.testAll({})).resolves.toEqual({ channel: 'testAll', payload: {} });
  });

  it('fails a call made while the link is down at once instead of hanging', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url, random: () => 1 });
    await client.getSnapshot({});
    h.dropAll();
    await vi.waitFor(() => expect(client?.link).toBe('reconnecting'));
    await expect(client.getSnapshot({})).rejects.toThrow(/Not connected to the app/);
  });

  it('queues calls made while the socket is opening and sends them once it is open', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    expect(client.link).toBe('connecting');
    await expect(client.getHistory({ serverId: 'fi' })).resolves.toEqual({ channel: 'getHistory', payload: { serverId: 'fi' } });
  });

  it('close() stops for good: pending calls rejected, no reconnect', async () => {
    const h = await echoHost();
    client = createWebSocketClient({ createSocket: createNodeSocket, url: h.url });
    await client.getSnapshot({});
    h.holdAnswers();
    const pending = client.testAll({});
    await vi.waitFor(() => expect(h.received.at(-1)?.channel).toBe('testAll'));
    client.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(client.testAll({})).rejects.toThrow(/closed/);
    await vi.waitFor(() => expect(h.connections()).toBe(0));
  });
});

/** A socket the test drives by hand, to check the back-off schedule on a fake clock. */
class ManualSocket implements SocketLike {
  static made: ManualSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  onopen: SocketLike['onopen'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  constructor(readonly url: string) {
    ManualSocket.made.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  fail(reason = '') {
    this.readyState = 3;
    this.onclose?.({ code: 1006, reason });
  }
}

describe('reconnect back-off', () => {
  it('doubles from 500 ms to a 10 s ceiling, with ±25 % jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => reconnectDelayMs(n, () => 0.5))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(reconnectDelayMs(1, () => 0)).toBe(375);
    expect(reconnectDelayMs(1, () => 1)).toBe(625);
  });

  it('waits longer after each failed attempt and starts over after a success', () => {
    vi.useFakeTimers();
    ManualSocket.made = [];
    client = createWebSocketClient({ url: 'ws://h/ws?token=x', createSocket: (url) => new ManualSocket(url), random: () => 0.5 });
    ManualSocket.made[0]!.fail();
    vi.advanceTimersByTime(499);
    expect(ManualSocket.made).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(ManualSocket.made).toHaveLength(2);
    ManualSocket.made[1]!.fail();
    vi.advanceTimersByTime(999);
    expect(ManualSocket.made).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(ManualSocket.made).toHaveLength(3);
    ManualSocket.made[2]!.open();
    // every socket asks for the snapshot as its first frame; the client sends no request for it
    expect(ManualSocket.made.map((m) => new URL(m.url).searchParams.get('snapshot'))).toEqual(['on-open', 'on-open', 'on-open']);
    expect(ManualSocket.made[2]!.sent).toEqual([]);
    ManualSocket.made[2]!.fail();
    vi.advanceTimersByTime(500);
    expect(ManualSocket.made).toHaveLength(4);
  });
});
