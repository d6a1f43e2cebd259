import { describe, expect, it } from 'vitest';
import type { AutoSnapshot } from '../../shared/domain/auto';
import type { ConnectionState, ConnectionStateName } from '../../shared/domain/connection';
import { sampleServer } from '../../shared/domain/sample-servers';
import { sampleSubscription } from '../../shared/testing/sample-subscriptions';
import type { Server } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { Subscription } from '../../shared/domain/subscription';
import type { AppSnapshot } from '../../shared/ipc/contract';
import { buildTrayMenu, EMPTY_TRAY_STATE, MAX_TRAY_SERVERS, MAX_TRAY_SUBSCRIPTIONS, type TrayMenuItem, type TrayState, trayCountsDown, trayStateAfter, trayTooltip } from './tray-menu';
import { trayTranslator } from './tray-text';
import { DEFAULT_SETTINGS } from '../../shared/settings';

const t = trayTranslator('en');

const server = (id: string, name: string, subscriptionId: string): Server => sampleServer('vless', 'tcp', { id, name, subscriptionId, address: 'h.example', security: { type: 'tls' } });

const subscription = (id: string, name: string, servers: Server[]): Subscription => sampleSubscription(id, servers, { name });

const status = (serverId: string, delayMs: number | null, country?: string, countryCode?: string): ServerStatus =>
  ({ serverId, delayMs, ipInfo: country || countryCode ? { ip: '203.0.113.9', country, countryCode, source: 'ipapi.co', fromCache: false, at: 0 } : null }) as ServerStatus;

const connection = (state: ConnectionStateName, serverId: string | null): ConnectionState => ({
  state,
  serverId,
  httpProxy: null,
  socksProxy: null,
  since: null,
  error: null,
  core: null,
});

const auto = (subscriptionId: string | null, excluded: Record<string, string[]> = {}): AutoSnapshot => ({
  subscriptionId,
  excluded,
  returnCandidate: null,
  networkLostUntil: null,
  timeline: [],
});

const work = subscription('sub-a', 'Work', [server('a1', 'Frankfurt 1', 'sub-a'), server('a2', 'Helsinki', 'sub-a'), server('a3', 'Tokyo', 'sub-a')]);
const home = subscription('sub-b', 'Home', [server('b1', 'Amsterdam', 'sub-b')]);

function state(overrides: Partial<TrayState> = {}): TrayState {
  return {
    connection: connection('disconnected', null),
    subscriptions: [work, home],
    auto: auto(null),
    statuses: { a1: status('a1', 120, 'Germany', 'DE'), a2: status('a2', 80, undefined, 'FI'), a3: status('a3', null), b1: status('b1', 60, 'Netherlands') },
    mode: null,
    ...overrides,
  };
}

const labels = (s: TrayState) => buildTrayMenu(s, t).map((i) => (i.kind === 'separator' ? '---' : i.label));

describe('buildTrayMenu', () => {
  it('connected with Auto on: the current server and its country, Disconnect, Auto ticked on its subscription', () => {
    const menu = buildTrayMenu(state({ connection: connection('connected', 'a1'), auto: auto('sub-a') }), t);
    expect(menu).toEqual([
      { kind: 'label', label: 'Connected: Frankfurt 1 — Germany' },
      { kind: 'separator' },
      { kind: 'action', label: 'Disconnect', action: { type: 'disconnect' }, enabled: true },
      { kind: 'separator' },
      { kind: 'label', label: 'Auto' },
      { kind: 'checkbox', label: 'Work: Frankfurt 1 — Germany', checked: true, action: { type: 'set-auto', subscriptionId: null } },
      { kind: 'checkbox', label: 'Home', checked: false, action: { type: 'set-auto', subscriptionId: 'sub-b' } },
      { kind: 'separator' },
      { kind: 'label', label: 'Servers' },
      expect.objectContaining({ kind: 'submenu', label: 'Work' }),
      expect.objectContaining({ kind: 'submenu', label: 'Home' }),
      { kind: 'separator' },
      { kind: 'action', label: 'Show Steadfast VPN', action: { type: 'show-window' }, enabled: true },
      { kind: 'action', label: 'Quit', action: { type: 'quit' }, enabled: true },
    ]);
  });

  it('uses the country code when the name is not known, and nothing when neither is', () => {
    expect(labels(state({ connection: connection('connected', 'a2') }))[0]).toBe('Connected: Helsinki — FI');
    expect(labels(state({ connection: connection('reconnecting', 'a3') }))[0]).toBe('Reconnecting…: Tokyo');
  });

  it('disconnected: Connect names no server, the engine chooses it (with Auto on or off), so Auto stays as it is', () => {
    for (const on of [auto(null), auto('sub-a')]) {
      const menu = buildTrayMenu(state({ auto: on }), t);
      expect(menu[0]).toEqual({ kind: 'label', label: 'Disconnected' });
      expect(menu[2]).toEqual({ kind: 'action', label: 'Connect', action: { type: 'connect' }, enabled: true });
    }
  });

  it('nothing to connect to: Connect is shown disabled', () => {
    const menu = buildTrayMenu(state({ subscriptions: [subscription('sub-e', 'Empty', [])] }), t);
    expect(menu[2]).toMatchObject({ kind: 'action', label: 'Connect', enabled: false });
  });

  it('while connecting or after a failure it says so', () => {
    expect(labels(state({ connection: connection('connecting', 'b1') })).slice(0, 3)).toEqual(['Connecting…: Amsterdam — Netherlands', '---', 'Disconnect']);
    expect(labels(state({ connection: connection('failed', 'b1') })).slice(0, 3)).toEqual(['Connection failed', '---', 'Connect']);
  });

  it('without subscriptions there is no Auto section', () => {
    expect(labels(state({ subscriptions: [] }))).toEqual(['Disconnected', '---', 'Connect', '---', 'Show Steadfast VPN', 'Quit']);
  });

  it('lists at most a handful of subscriptions', () => {
    const many = Array.from({ length: 20 }, (_, i) => subscription(`s${i}`, `Sub ${i}`, []));
    expect(buildTrayMenu(state({ subscriptions: many }), t).filter((i) => i.kind === 'checkbox')).toHaveLength(MAX_TRAY_SUBSCRIPTIONS);
  });

  it('speaks the user’s language', () => {
    const fa = trayTranslator('fa');
    const menu = buildTrayMenu(state({ connection: connection('connected', 'b1') }), fa);
    expect(menu[0]).toEqual({ kind: 'label', label: 'وصل: Amsterdam — Netherlands' });
    expect(menu.at(-1)).toMatchObject({ label: 'خروج' });
  });

  it('the tooltip names the state and the server', () => {
    expect(trayTooltip(state({ connection: connection('connected', 'a1') }), t)).toBe('Steadfast VPN — Connected: Frankfurt 1 — Germany');
    expect(trayTooltip(state(), t)).toBe('Steadfast VPN — Disconnected');
  });
});

describe('the mode in the tray', () => {
  it('is shown under the state and in the tooltip, in the user’s language, and follows the settings', () => {
    const wide = state({ connection: connection('connected', 'a1'), mode: 'system-wide' });
    expect(labels(wide)[1]).toBe('Mode: System-wide');
    expect(trayTooltip(wide, t)).toBe('Steadfast VPN — Connected: Frankfurt 1 — Germany (System-wide)');
    expect(buildTrayMenu(wide, trayTranslator('ru'))[1]).toEqual({ kind: 'label', label: 'Режим: Весь компьютер' });
    const changed = trayStateAfter(wide, 'settings', { ...DEFAULT_SETTINGS, mode: 'system-proxy' });
    expect(labels(changed)[1]).toBe('Mode: System proxy');
  });
});

describe('tray state from engine events', () => {
  it('a snapshot sets everything; later events update their part', () => {
    const snapshot = { connection: connection('connected', 'a1'), subscriptions: [work], auto: auto('sub-a'), statuses: {}, settings: {} } as unknown as AppSnapshot;
    let s = trayStateAfter(EMPTY_TRAY_STATE, 'snapshot', snapshot);
    expect(s).toMatchObject({ subscriptions: [work] });
    expect(labels(s)[0]).toBe('Connected: Frankfurt 1');
    s = trayStateAfter(s, 'statuses', [status('a1', 99, 'Germany')]);
    s = trayStateAfter(s, 'statuses', [status('a2', 50, 'Finland')]);
    expect(Object.keys(s.statuses)).toEqual(['a1', 'a2']);
    expect(labels(s)[0]).toBe('Connected: Frankfurt 1 — Germany');
    s = trayStateAfter(s, 'connection', connection('disconnected', null));
    expect(labels(s).slice(0, 3)).toEqual(['Disconnected', '---', 'Connect']);
    s = trayStateAfter(s, 'subscriptions', [work, home]);
    s = trayStateAfter(s, 'auto', auto(null));
    expect(s.auto?.subscriptionId).toBeNull();
    expect(trayStateAfter(s, 'traffic', { at: 0, intervalMs: 1000, upBytes: 1, downBytes: 2 })).toBe(s);
  });
});

describe('the tray while the network is lost', () => {
  const NOW = 1_000_000;
  const lost = (until: number | null): TrayState => state({ connection: connection('connected', 'a1'), auto: { ...auto('sub-a'), networkLostUntil: until } });

  it.each<[string, number | null, string]>([
    ['the verdict in force: the countdown to the next try, not "Connected"', NOW + 15_000, 'Network lost — waiting, next try in 15 s: Frankfurt 1 — Germany'],
    ['part of a second counts as a whole one', NOW + 14_200, 'Network lost — waiting, next try in 15 s: Frankfurt 1 — Germany'],
    ['the try is due and the engine has not answered yet', NOW - 10, 'Network lost — trying again now: Frankfurt 1 — Germany'],
    ['no verdict: connected', null, 'Connected: Frankfurt 1 — Germany'],
  ])('%s', (_, until, first) => {
    const menu = buildTrayMenu(lost(until), t, undefined, NOW);
    expect(menu[0]).toMatchObject({ kind: 'label', label: first });
    expect(trayTooltip(lost(until), t, undefined, NOW)).toBe(`Steadfast VPN — ${first}`);
    expect(trayCountsDown(lost(until), NOW)).toBe(until !== null);
  });

  it('says it in the user\u2019s language', () => {
    expect(buildTrayMenu(lost(NOW + 3_000), trayTranslator('ru'), undefined, NOW)[0]).toMatchObject({ label: 'Сеть потеряна — ждём, следующая попытка через 3 с: Frankfurt 1 — Germany' });
  });

  it('before Auto confirms it, the silence of every server asked reads "checking", without a countdown', () => {
    const silent = state({ connection: connection('connected', 'a1'), auto: { ...auto('sub-a'), networkLostUntil: null, networkSilentSince: NOW - 1000 } });
    expect(buildTrayMenu(silent, t, undefined, NOW)[0]).toMatchObject({ kind: 'label', label: 'Network lost — no server answers, checking: Frankfurt 1 — Germany' });
    expect(trayCountsDown(silent, NOW)).toBe(true);
  });

  it('a tunnel that is down keeps its own state', () => {
    const down = state({ connection: connection('failed', null), auto: { ...auto('sub-a'), networkLostUntil: NOW + 15_000 } });
    expect(buildTrayMenu(down, t, undefined, NOW)[0]).toMatchObject({ label: 'Connection failed' });
    expect(trayCountsDown(down, NOW)).toBe(false);
  });
});

describe("the tray's server submenus (the row menu's actions)", () => {
  const submenu = (items: TrayMenuItem[], label: string) => {
    const found = items.find((i) => i.kind === 'submenu' && i.label === label);
    if (!found || found.kind !== 'submenu') throw new Error(`no submenu ${label}`);
    return found.items;
  };
  const actions = (items: TrayMenuItem[]) => items.map((i) => (i.kind === 'action' ? `${i.label}${i.enabled ? '' : ' (off)'}` : i.kind));

  it('one submenu per subscription, one per server, the current one marked, with Connect, Test and Exclude from Auto', () => {
    const menu = buildTrayMenu(state({ connection: connection('connected', 'a1'), auto: auto('sub-a') }), t);
    const work = submenu(menu, 'Work');
    expect(work.map((i) => (i.kind === 'submenu' ? i.label : i.kind))).toEqual(['● Frankfurt 1', 'Helsinki', 'Tokyo']);
    expect(actions(submenu(work, '● Frankfurt 1'))).toEqual(['Connect (off)', 'Test', 'Exclude from Auto']);
    expect(submenu(work, 'Helsinki')).toEqual([
      { kind: 'action', label: 'Connect', action: { type: 'connect-server', serverId: 'a2' }, enabled: true },
      { kind: 'action', label: 'Test', action: { type: 'test-server', serverId: 'a2' }, enabled: true },
      { kind: 'action', label: 'Exclude from Auto', action: { type: 'set-excluded', subscriptionId: 'sub-a', serverIds: ['a2'] }, enabled: true },
    ]);
  });

  it('Include for an excluded server, the list the exclude dialog would save; the last available cannot be excluded', () => {
    const menu = buildTrayMenu(state({ auto: auto('sub-a', { 'sub-a': ['a1', 'a3'] }) }), t);
    const work = submenu(menu, 'Work');
    expect(submenu(work, 'Tokyo').at(-1)).toEqual({ kind: 'action', label: 'Include in Auto', action: { type: 'set-excluded', subscriptionId: 'sub-a', serverIds: ['a1'] }, enabled: true });
    expect(actions(submenu(work, 'Helsinki'))).toEqual(['Connect', 'Test', 'Exclude from Auto (off)']);
  });

  it('in the user’s language, and at most a screenful of servers per subscription', () => {
    const big = subscription('sub-z', 'Big', Array.from({ length: 50 }, (_, i) => server(`z${i}`, `Z ${i}`, 'sub-z')));
    const menu = buildTrayMenu(state({ subscriptions: [big] }), trayTranslator('fa'));
    const servers = submenu(menu, 'Big');
    expect(servers).toHaveLength(MAX_TRAY_SERVERS);
    expect(actions(submenu(servers, 'Z 0'))).toEqual(['اتصال', 'آزمایش', 'کنار گذاشتن از خودکار']);
  });
});
