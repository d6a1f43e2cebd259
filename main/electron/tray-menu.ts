import type { AutoSnapshot } from '../../shared/domain/auto';
import type { ConnectionState } from '../../shared/domain/connection';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import type { EventName, EventPayloads, ListStatus, ListSubscription } from '../../shared/ipc/contract';
import type { ConnectionMode } from '../../shared/settings';
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
      };
    }
    case 'settings':
      return { ...state, mode: (payload as EventPayloads['settings']).mode };
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
  | { type: 'show-window' }
  | { type: 'quit' };

/** `flag`: the country (ISO code) whose flag the item shows as its icon, from a flag in a name. */
export type TrayMenuItem =
  | { kind: 'separator' }
  | { kind: 'label'; label: string; flag?: string }
  | { kind: 'action'; label: string; action: TrayAction; enabled: boolean }
  | { kind: 'checkbox'; label: string; action: TrayAction; checked: boolean; flag?: string };

/** How a server's or subscription's name reads in the tray (tray-flags.ts `trayName`). */
export type TrayNamer = (name: string) => TrayName;
const asWritten: TrayNamer = (name) => ({ text: name, flag: null });
const withFlag = (flag: string | null) => (flag ? { flag } : {});

/** Subscriptions listed under "Auto" at most: a tray menu is not the place for a long list. */
export const MAX_TRAY_SUBSCRIPTIONS = 8;

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

/** The tray menu for a state, as data (tray.ts turns it into an Electron menu). */
export function buildTrayMenu(state: TrayState, t: TrayTranslate, nameOf: TrayNamer = asWritten): TrayMenuItem[] {
  const connection = state.connection;
  const stateName = connection?.state ?? 'disconnected';
  const active = ACTIVE_STATES.has(stateName);
  const current = active ? (connection?.serverId ?? null) : null;
  const currentServer = describeServer(state, current, nameOf);

  const items: TrayMenuItem[] = [
    currentServer ? { kind: 'label', label: `${t(stateName)}: ${currentServer.text}`, ...withFlag(currentServer.flag) } : { kind: 'label', label: t(stateName) },
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

  items.push(
    { kind: 'separator' },
    { kind: 'action', label: t('showWindow'), action: { type: 'show-window' }, enabled: true },
    { kind: 'action', label: t('quit'), action: { type: 'quit' }, enabled: true },
  );
  return items;
}

/** The tray icon's hover text. */
export function trayTooltip(state: TrayState, t: TrayTranslate, nameOf: TrayNamer = asWritten): string {
  const stateName = state.connection?.state ?? 'disconnected';
  const server = ACTIVE_STATES.has(stateName) ? describeServer(state, state.connection?.serverId ?? null, nameOf) : null;
  const mode = state.mode ? ` (${t(`mode-${state.mode}`)})` : '';
  return `Steadfast VPN — ${t(stateName)}${server ? `: ${server.text}` : ''}${mode}`;
}
