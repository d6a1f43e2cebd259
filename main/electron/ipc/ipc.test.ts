import { pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../../../app/log/logger';
import { EVENT_NAMES, type EventName, type EventPayloads, INVOKE_CHANNELS, type VpnClient } from '../../../shared/ipc/contract';
import { EngineRefusal } from '../../../shared/domain/refusal';
import { clientOverBridge } from '../../../shared/ipc/answer';
import { buildPreloadApi } from '../preload';
import { resolveRendererSource } from '../security';
import { acrossContextBridge, fake, FakeWebContents, resetFakeElectron } from '../testing/fake-electron';
import { forwardEngineEvents } from './events';
import { registerInvokeHandlers } from './handlers';
import { senderRefusal } from './sender';

vi.mock('electron', async () => (await import('../testing/fake-electron')).fakeElectronModule());

const { source } = resolveRendererSource('/opt/steadfast/dist/renderer', {});
const OUR_PAGE = `${pathToFileURL('/opt/steadfast/dist/renderer/index.html').href}#/servers`;

/** An engine that records what reached it. */
function recordingService() {
  const calls: [string, unknown][] = [];
  const service = Object.fromEntries(
    INVOKE_CHANNELS.map((channel) => [
      channel,
      async (request: unknown) => {
        calls.push([channel, request]);
        // As the engine refuses: with a code for the window, and once with words alone.
        if (channel === 'connect' && (request as { serverId?: string }).serverId === undefined) {
          throw new EngineRefusal('no-server-chosen', 'choose a server to connect to, or turn Auto on for a subscription');
        }
        if (channel === 'testAll') throw new Error('the monitor is not running');
        return { ok: channel };
      },
    ]),
  ) as unknown as Omit<VpnClient, 'on'>;
  return { service, calls };
}

function setup() {
  const ours = new FakeWebContents();
  ours.mainFrame.url = OUR_PAGE;
  const { service, calls } = recordingService();
  const { logger, lines } = memoryLogger();
  const dispose = registerInvokeHandlers({ service, checkSender: (event) => senderRefusal(event, ours, source), logger });
  const fromOurPage = { sender: ours, senderFrame: ours.mainFrame };
  return { ours, calls, lines, dispose, fromOurPage };
}

beforeEach(() => resetFakeElectron());

describe('IPC handlers', () => {
  it('registers exactly one handler per contract channel, and removes them all', () => {
    const { dispose } = setup();
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual(INVOKE_CHANNELS.map((c) => `vpn:${c}`).sort());
    dispose();
    expect(fake.ipcMain.handlers.size).toBe(0);
  });

  it('a valid request from the app’s page reaches the engine, parsed', async () => {
    const { calls, fromOurPage } = setup();
    await expect(fake.ipcMain.invoke('vpn:connect', fromOurPage, { serverId: 's1' })).resolves.toEqual({ ok: true, value: { ok: 'connect' } });
    await fake.ipcMain.invoke('vpn:setAuto', fromOurPage, { subscriptionId: null });
    expect(calls).toEqual([
      ['connect', { serverId: 's1' }],
      ['setAuto', { subscriptionId: null }],
    ]);
  });

  it.each([
    ['connect', { serverId: 42 }, /invalid connect request: serverId/],
    ['connect', { serverId: 's1', extra: true }, /invalid connect request/],
    ['connect', undefined, /invalid connect request/],
    ['addSubscription', { url: 'https://sub.example/x', text: 'vmess://…' }, /either a URL or pasted text/],
    ['addSubscription', { url: 'not a url' }, /invalid addSubscription request: url/],
    ['setExcluded', { subscriptionId: 'a', serverIds: Array.from({ length: 100_001 }, (_, i) => `s${i}`) }, /invalid setExcluded request: serverIds/],
    ['setSettings', { httpPort: 70000 }, /invalid setSettings request: httpPort/],
    ['labControl', { action: 'exec', cmd: 'rm -rf /' }, /invalid labControl request/],
  ])('%s with a bad payload is rejected with a clear error and never reaches the engine (%#)', async (channel, payload, message) => {
    const { calls, fromOurPage } = setup();
    await expect(fake.ipcMain.invoke(`vpn:${channel}`, fromOurPage, payload)).rejects.toThrow(message);
    expect(calls).toEqual([]);
  });

  it('an engine refusal reaches the page’s client through the preload and the contextBridge with its code beside its words; one without a code stays words', async () => {
    const { fromOurPage } = setup();
    // The page's window.vpn, its invokes answered by the handlers as Electron would carry them.
    const preload = buildPreloadApi({
      invoke: (channel, payload) => fake.ipcMain.invoke(channel, fromOurPage, payload),
      on: () => undefined,
      removeListener: () => undefined,
    });
    const page = clientOverBridge(acrossContextBridge(preload));
    await expect(page.connect({})).rejects.toMatchObject({
      name: 'EngineRefusal',
      code: 'no-server-chosen',
      message: 'choose a server to connect to, or turn Auto on for a subscription',
    });
    const plain = await page.testAll({}).catch((error: unknown) => error);
    expect(plain).toMatchObject({ message: 'the monitor is not running' });
    expect(plain).not.toHaveProperty('code');
    await expect(page.connect({ serverId: 's1' })).resolves.toEqual({ ok: 'connect' });
    // Thrown in the preload's world instead, the code would not have reached the page.
    const thrownInPreload = acrossContextBridge({ connect: async () => Promise.reject(new EngineRefusal('no-server-chosen', 'choose a server')) });
    await expect(thrownInPreload.connect()).rejects.not.toHaveProperty('code');
  });

  it('a bad payload is logged without its content', async () => {
    const { lines, fromOurPage } = setup();
    const secret = 'vless://0b6f3c1e-1111-4a2b-9c3d-123456789abc@host:443';
    await expect(fake.ipcMain.invoke('vpn:addSubscription', fromOurPage, { text: secret, url: 'https://x.example/' })).rejects.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/WARNING IPC refused invalid addSubscription request/);
    expect(lines.join('\n')).not.toContain('0b6f3c1e');
    expect(lines.join('\n')).not.toContain('x.example');
  });

  it('extra arguments are refused', async () => {
    const { calls, fromOurPage } = setup();
    await expect(fake.ipcMain.invoke('vpn:disconnect', fromOurPage, {}, { more: 1 })).rejects.toThrow(/exactly one request/);
    expect(calls).toEqual([]);
  });
});

describe('IPC sender check', () => {
  it('a frame showing https://evil.example in our window is refused', async () => {
    const { ours, calls, lines } = setup();
    ours.mainFrame.url = 'https://evil.example/';
    await expect(fake.ipcMain.invoke('vpn:getSnapshot', { sender: ours, senderFrame: ours.mainFrame }, {})).rejects.toThrow(
      /refused: the request did not come from the app's own page/,
    );
    expect(calls).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/refused getSnapshot from https:\/\/evil\.example$/)]);
  });

  it('an iframe inside our page is refused, even one showing our own file', async () => {
    const { ours, calls } = setup();
    await expect(fake.ipcMain.invoke('vpn:disconnect', { sender: ours, senderFrame: ours.subFrame('https://ads.example/') }, {})).rejects.toThrow(/refused/);
    await expect(fake.ipcMain.invoke('vpn:disconnect', { sender: ours, senderFrame: ours.subFrame(OUR_PAGE) }, {})).rejects.toThrow(/refused/);
    expect(calls).toEqual([]);
  });

  it('web contents that are not our window are refused, even showing our page', async () => {
    const { calls } = setup();
    const other = new FakeWebContents();
    other.mainFrame.url = OUR_PAGE;
    await expect(fake.ipcMain.invoke('vpn:connect', { sender: other, senderFrame: other.mainFrame }, { serverId: 's1' })).rejects.toThrow(/refused/);
    expect(calls).toEqual([]);
  });

  it('a frame that navigated away (no senderFrame) and a closed window are refused', () => {
    const ours = new FakeWebContents();
    expect(senderRefusal({ sender: ours as never, senderFrame: null }, ours, source)).toBe('a page that has navigated away');
    expect(senderRefusal({ sender: ours as never, senderFrame: ours.mainFrame as never }, null, source)).toBe('the app window is not open');
  });

  it('other local files are not our page', () => {
    const ours = new FakeWebContents();
    for (const url of ['file:///etc/passwd', 'file:///opt/steadfast/dist/renderer/other.html', 'file://evil.example/opt/steadfast/dist/renderer/index.html']) {
      ours.mainFrame.url = url;
      expect(senderRefusal({ sender: ours as never, senderFrame: ours.mainFrame as never }, ours, source)).not.toBeNull();
    }
  });

  it('with the loopback dev server, its origin and only its origin', () => {
    const dev = resolveRendererSource('/x', { VPN_DEV_SERVER: 'http://localhost:5173' }).source;
    const ours = new FakeWebContents();
    ours.mainFrame.url = 'http://localhost:5173/#/servers';
    expect(senderRefusal({ sender: ours as never, senderFrame: ours.mainFrame as never }, ours, dev)).toBeNull();
    ours.mainFrame.url = 'http://localhost:5174/';
    expect(senderRefusal({ sender: ours as never, senderFrame: ours.mainFrame as never }, ours, dev)).toBe('http://localhost:5174');
  });
});

describe('engine events to the window', () => {
  function engineWithEvents() {
    const listeners = new Map<string, Set<(p: unknown) => void>>();
    return {
      on<E extends EventName>(event: E, listener: (p: EventPayloads[E]) => void) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event)!.add(listener as (p: unknown) => void);
        return () => listeners.get(event)!.delete(listener as (p: unknown) => void);
      },
      emit(event: string, payload: unknown) {
        listeners.get(event)?.forEach((l) => l(payload));
      },
      count: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
    };
  }

  it('every contract event is forwarded as vpn:event:<name> with its payload', () => {
    const engine = engineWithEvents();
    const contents = new FakeWebContents();
    forwardEngineEvents(engine, () => contents);
    for (const name of EVENT_NAMES) engine.emit(name, { name });
    expect(contents.sent).toEqual(EVENT_NAMES.map((name) => [`vpn:event:${name}`, { name }]));
  });

  it('events while the window is closed are dropped; unsubscribing stops forwarding', () => {
    const engine = engineWithEvents();
    const contents = new FakeWebContents();
    let target: FakeWebContents | null = null;
    const off = forwardEngineEvents(engine, () => target);
    engine.emit('traffic', 1);
    target = contents;
    contents.destroyed = true;
    engine.emit('traffic', 2);
    contents.destroyed = false;
    engine.emit('traffic', 3);
    off();
    engine.emit('traffic', 4);
    expect(contents.sent).toEqual([['vpn:event:traffic', 3]]);
    expect(engine.count()).toBe(0);
  });
});
