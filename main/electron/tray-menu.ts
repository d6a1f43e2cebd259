import type { AutoSnapshot } from '../../shared/domain/auto';
import type { ConnectionState } from '../../shared/domain/connection';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import type { EventName, EventPayloads, ListStatus, ListSubscription } from '../../shared/ipc/contract';
import type { ConnectionMode } from '../../shared/settings';
import { countdownSeconds, shownConnection } from '../../shared/domain/shown-status';
import { excludedAfter, rowMenuItems } from '../../shared/domain/server-actions';
import type { TrayName } from './tray-flags';
import type { TrayTranslate } from './tray-text';

/** What the tray knows, kept up to date from the engine's events. */
export interface TrayState {
  connection: ConnectionState | null;
  subscriptions: ListSubscription[];
  auto: AutoSnapshot | null;
  statuses: Record<ServerId, ListStatus>;
  /** What Connect changes on the machine (shown, since system-wide mode captures every app). */
  mode: ConnectionMode | null;
  /** The kill switch setting, once the settings are known (null: not yet; no item then). */
  killSwitch?: boolean | null;
}

export const EMPTY_TRAY_STATE: TrayState = { connection: null, subscriptions: [], auto: null, statuses: {}, mode: null };

/** Folds one engine event into the tray's state (events the tray does not show return it unchanged). */
export function trayStateAfter<E extends EventName>(state: TrayState, event: E, payload: EventPayloads[E]): TrayState {
  switch (event) {
    case 'snapshot': {
      const s = payload as EventPayloads['snapshot'];
      return {
        connection: s.connection,
        subscriptions: s.subscriptions,
        auto: s.auto,
        statuses: s.statuses,
        // Hosts and tests may send a snapshot from before modes existed.
        mode: (s.settings.mode as ConnectionMode | undefined) ?? null,
        killSwitch: (s.settings.killSwitch as boolean | undefined) ?? null,
      };
    }
    case 'settings':
      return { ...state, mode: (payload as EventPayloads['settings']).mode, killSwitch: (payload as EventPayloads['settings']).killSwitch ?? null };
    case 'connection':
      return { ...state, connection: payload as EventPayloads['connection'] };
    case 'subscriptions':
      return { ...state, subscriptions: payload as EventPayloads['subscriptions'] };
    case 'auto':
      return { ...state, auto: payload as EventPayloads['auto'] };
    case 'statuses': {
      const statuses = { ...state.statuses };
      for (const status of payload as EventPayloads['statuses']) statuses[status.serverId] = status;
      return { ...state, statuses };
    }
    default:
      return state;
  }
}

export type TrayAction =
  /** The engine decides which server (app/engine/connect-target.ts), as for the window's Connect. */
  | { type: 'connect' }
  | { type: 'disconnect' }
  | { type: 'set-auto'; subscriptionId: SubscriptionId | null }
  /** The kill switch on or off, as in Settings → Connection. */
  | { type: 'set-kill-switch'; on: boolean }
  /** A server's own submenu (the window's row menu): connect to it, test it, exclude or include it. */
  | { type: 'connect-server'; serverId: ServerId }
  | { type: 'test-server'; serverId: ServerId }
  | { type: 'set-excluded'; subscriptionId: SubscriptionId; serverIds: ServerId[] }
  | { type: 'show-window' }
  | { type: 'quit' };

/** `flag`: the country (ISO code) whose flag the item shows as its icon, from a flag in a name. */
export type TrayMenuItem =
  | { kind: 'separator' }
  | { kind: 'label'; label: string; flag?: string }
  | { kind: 'action'; label: string; action: TrayAction; enabled: boolean }
  | { kind: 'checkbox'; label: string; action: TrayAction; checked: boolean; flag?: string }
  | { kind: 'submenu'; label: string; items: TrayMenuItem[]; flag?: string };

/** How a server's or subscription's name reads in the tray (tray-flags.ts `trayName`). */
export type TrayNamer = (name: string) => TrayName;
const asWritten: TrayNamer = (name) => ({ text: name, flag: null });
const withFlag = (flag: string | null) => (flag ? { flag } : {});

/** Subscriptions listed under "Auto" at most: a tray menu is not the place for a long list. */
export const MAX_TRAY_SUBSCRIPTIONS = 8;
/** Servers of one subscription in its "Servers" submenu at most (the window has the whole list). */
export const MAX_TRAY_SERVERS = 30;

const ACTIVE_STATES = new Set(['connected', 'connecting', 'reconnecting']);

function serverName(state: TrayState, id: ServerId | null): string | null {
  if (id === null) return null;
  for (const sub of state.subscriptions) {
    const server = sub.servers.find((s) => s.id === id);
    if (server) return server.name;
  }
  return null;
}

function subscriptionOf(state: TrayState, id: ServerId | null): ListSubscription | null {
  if (id === null) return null;
  return state.subscriptions.find((sub) => sub.servers.some((s) => s.id === id)) ?? null;
}

/** Where a server's traffic leaves, as the monitor last saw it: "Germany", else the code "DE". */
function countryOf(state: TrayState, id: ServerId | null): string | null {
  const info = id === null ? null : state.statuses[id]?.ipInfo;
  return info?.country ?? info?.countryCode ?? null;
}

/** "Server — Country", or as much of it as is known. */
function describeServer(state: TrayState, id: ServerId | null, nameOf: TrayNamer): TrayName | null {
  const name = serverName(state, id);
  if (name === null) return null;
  const shown = nameOf(name);
  const country = countryOf(state, id);
  return country ? { ...shown, text: `${shown.text} — ${country}` } : shown;
}

/**
 * The state in words, as the window's top bar says it: while Auto's network-loss verdict is in
 * force a tunnel that is up reads "Network lost — waiting, next try in 15 s", not "Connected";
 * before it, while no server answers, "Network lost — no server answers, checking".
 */
export function trayStateText(state: TrayState, t: TrayTranslate, now: number): string {
  const stateName = state.connection?.state ?? 'disconnected';
  const shown = shownConnection(stateName, state.auto, now);
  if (shown.kind === 'state') return t(shown.state);
  if (shown.nextTryInMs === null) return t('networkLostChecking');
  return shown.nextTryInMs > 0 ? t('networkLost', { seconds: String(countdownSeconds(shown.nextTryInMs)) }) : t('networkLostNow');
}

/** Whether the tray shows a countdown that must be redrawn every second. */
export function trayCountsDown(state: TrayState, now: number): boolean {
  return shownConnection(state.connection?.state ?? 'disconnected', state.auto, now).kind === 'network-lost';
}

/** The tray menu for a state at a time, as data (tray.ts turns it into an Electron menu). */
export function buildTrayMenu(state: TrayState, t: TrayTranslate, nameOf: TrayNamer = asWritten, now = Date.now()): TrayMenuItem[] {
  const connection = state.connection;
  const stateName = connection?.state ?? 'disconnected';
  const active = ACTIVE_STATES.has(stateName);
  const current = active ? (connection?.serverId ?? null) : null;
  const currentServer = describeServer(state, current, nameOf);
  const stateText = trayStateText(state, t, now);

  const items: TrayMenuItem[] = [
    currentServer ? { kind: 'label', label: `${stateText}: ${currentServer.text}`, ...withFlag(currentServer.flag) } : { kind: 'label', label: stateText },
  ];
  if (state.mode) items.push({ kind: 'label', label: t('modeLine', { mode: t(`mode-${state.mode}`) }) });
  items.push({ kind: 'separator' });

  if (active) {
    items.push({ kind: 'action', label: t('disconnect'), action: { type: 'disconnect' }, enabled: true });
  } else {
    const anyServer = state.subscriptions.some((sub) => sub.servers.length > 0);
    items.push({ kind: 'action', label: t('connect'), action: { type: 'connect' }, enabled: anyServer });
  }

  if (state.subscriptions.length > 0) {
    items.push({ kind: 'separator' }, { kind: 'label', label: t('auto') });
    const currentSub = subscriptionOf(state, current);
    for (const sub of state.subscriptions.slice(0, MAX_TRAY_SUBSCRIPTIONS)) {
      const on = state.auto?.subscriptionId === sub.id;
      const carrying = on && currentSub?.id === sub.id ? currentServer : null;
      const name = nameOf(sub.name);
      items.push({
        kind: 'checkbox',
        label: carrying ? `${name.text}: ${carrying.text}` : name.text,
        checked: on,
        action: { type: 'set-auto', subscriptionId: on ? null : sub.id },
        ...withFlag(name.flag ?? carrying?.flag ?? null),
      });
    }
  }

  if (typeof state.killSwitch === 'boolean') {
    items.push({ kind: 'separator' }, { kind: 'checkbox', label: t('killSwitch'), checked: state.killSwitch, action: { type: 'set-kill-switch', on: !state.killSwitch } });
  }
  const withServers = state.subscriptions.slice(0, MAX_TRAY_SUBSCRIPTIONS).filter((sub) => sub.servers.length > 0);
  if (withServers.length > 0) {
    items.push({ kind: 'separator' }, { kind: 'label', label: t('servers') });
    for (const sub of withServers) {
      const name = nameOf(sub.name);
      items.push({ kind: 'submenu', label: name.text, items: serverSubmenus(state, sub, current, t, nameOf), ...withFlag(name.flag) });
    }
  }

  items.push(
    { kind: 'separator' },
    { kind: 'action', label: t('showWindow'), action: { type: 'show-window' }, enabled: true },
    { kind: 'action', label: t('quit'), action: { type: 'quit' }, enabled: true },
  );
  return items;
}

/**
 * One submenu per server with the row menu's actions that a tray menu can carry out: Connect,
 * Test, Exclude from Auto / Include. Share and Details need the window (a QR code, a chart).
 */
function serverSubmenus(state: TrayState, sub: ListSubscription, current: ServerId | null, t: TrayTranslate, nameOf: TrayNamer): TrayMenuItem[] {
  const excluded = state.auto?.excluded[sub.id] ?? [];
  const available = sub.servers.filter((s) => !excluded.includes(s.id));
  return sub.servers.slice(0, MAX_TRAY_SERVERS).map((server): TrayMenuItem => {
    const name = nameOf(server.name);
    const actions = rowMenuItems({
      isCurrent: server.id === current,
      isExcluded: excluded.includes(server.id),
      isLastAvailable: available.length === 1 && available[0]?.id === server.id,
      testing: state.statuses[server.id]?.testing ?? false,
    }).flatMap((item): TrayMenuItem[] => {
      switch (item.action) {
        case 'connect':
          return [{ kind: 'action', label: t('serverConnect'), action: { type: 'connect-server', serverId: server.id }, enabled: item.enabled }];
        case 'test':
          return [{ kind: 'action', label: t('serverTest'), action: { type: 'test-server', serverId: server.id }, enabled: item.enabled }];
        case 'exclude':
        case 'include':
          return [
            {
              kind: 'action',
              label: t(item.action === 'exclude' ? 'serverExclude' : 'serverInclude'),
              action: { type: 'set-excluded', subscriptionId: sub.id, serverIds: excludedAfter(excluded, server.id, item.action) },
              enabled: item.enabled,
            },
          ];
        default:
          return [];
      }
    });
    return { kind: 'submenu', label: server.id === current ? `● ${name.text}` : name.text, items: actions, ...withFlag(name.flag) };
  });
}

/** The tray icon's hover text. */
export function trayTooltip(state: TrayState, t: TrayTranslate, nameOf: TrayNamer = asWritten, now = Date.now()): string {
  const stateName = state.connection?.state ?? 'disconnected';
  const server = ACTIVE_STATES.has(stateName) ? describeServer(state, state.connection?.serverId ?? null, nameOf) : null;
  const mode = state.mode ? ` (${t(`mode-${state.mode}`)})` : '';
  return `Steadfast VPN — ${trayStateText(state, t, now)}${server ? `: ${server.text}` : ''}${mode}`;
}
