/** Derived views of the servers: list rows, per-row models, flags and ping colours. */
import type { ListServer, ListStatus, ListSubscription } from '../../../shared/ipc/contract';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { IpInfo } from '../../../shared/domain/measurement';
import { memoSelector } from './memo';
import type { AppState } from './types';

/** Ping thresholds (ms): below GOOD is green, below FAIR amber, else red. */
export const PING_GOOD_BELOW_MS = 150;
export const PING_FAIR_BELOW_MS = 400;

export type PingClass = 'good' | 'fair' | 'poor' | 'none';

export function pingClass(delayMs: number | null | undefined): PingClass {
  if (delayMs === null || delayMs === undefined || !Number.isFinite(delayMs)) return 'none';
  if (delayMs < PING_GOOD_BELOW_MS) return 'good';
  if (delayMs < PING_FAIR_BELOW_MS) return 'fair';
  return 'poor';
}

const displayNames = new Map<string, Intl.DisplayNames | null>();

function regionNames(language: string): Intl.DisplayNames | null {
  if (!displayNames.has(language)) {
    try {
      displayNames.set(language, new Intl.DisplayNames([language, 'en'], { type: 'region', fallback: 'none' }));
    } catch {
      displayNames.set(language, null);
    }
  }
  return displayNames.get(language) ?? null;
}

export interface Country {
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  /** The country's name in the UI language. */
  name: string;
}

/** A country's name in `language` ("DE" → "Germany", "Allemagne", "Германия"), or null when the code names none. */
export function countryName(code: string, language: string): string | null {
  try {
    return regionNames(language)?.of(code) ?? null;
  } catch {
    return null;
  }
}

/** The exit country of an IP-info record, named in `language`; null when unknown. */
export function countryOf(ipInfo: Pick<IpInfo, 'countryCode' | 'country'> | null | undefined, language: string): Country | null {
  if (!ipInfo) return null;
  const code = ipInfo.countryCode?.trim().toUpperCase();
  if (code && /^[A-Z]{2}$/.test(code)) {
    return { code, name: countryName(code, language) ?? ipInfo.country ?? code };
  }
  return null;
}

/** "Helsinki, Uusimaa · AS24940 · Hetzner Online GmbH": the tooltip of a country cell. */
export function ipInfoDetails(ipInfo: IpInfo | null | undefined): string {
  if (!ipInfo) return '';
  const place = [ipInfo.city, ipInfo.region].filter(Boolean).join(', ');
  const network = [ipInfo.asn, ipInfo.org].filter(Boolean).join(' ');
  return [place, network].filter(Boolean).join(' · ');
}

export const selectServerIndex = memoSelector(
  (state: AppState) => [state.subscriptions] as const,
  ([subscriptions]): Map<ServerId, ListServer> => {
    const index = new Map<ServerId, ListServer>();
    for (const subscription of subscriptions) for (const server of subscription.servers) index.set(server.id, server);
    return index;
  },
);

export function selectServer(state: AppState, id: ServerId): ListServer | undefined {
  return selectServerIndex(state).get(id);
}

export function selectSubscription(state: AppState, id: SubscriptionId): ListSubscription | undefined {
  return state.subscriptions.find((s) => s.id === id);
}

export type ListRow =
  | { kind: 'subscription'; key: string; subscriptionId: SubscriptionId; matched: number }
  | { kind: 'server'; key: string; serverId: ServerId; subscriptionId: SubscriptionId; position: number }
  | { kind: 'empty'; key: string; subscriptionId: SubscriptionId; reason: 'no-servers' | 'no-match' };

function matchesFilter(server: ListServer, status: ListStatus | undefined, needle: string): boolean {
  if (!needle) return true;
  const haystack = [
    server.name,
    server.protocol,
    server.address,
    status?.ipInfo?.ip,
    status?.ipInfo?.countryCode,
    status?.ipInfo?.country,
    status?.ipInfo?.city,
    status?.ipInfo?.org,
  ];
  return haystack.some((value) => value !== undefined && value.toLocaleLowerCase().includes(needle));
}

/** Sort key by ping: answered servers fastest first, then untested, then failed. */
function pingRank(status: ListStatus | undefined): [number, number] {
  if (!status || (status.delayMs === null && !status.error)) return [1, 0];
  if (status.delayMs === null) return [2, 0];
  return [0, status.delayMs];
}

/** Sort key by speed: measured servers fastest first, then untested, then failed. */
function speedRank(status: ListStatus | undefined): [number, number] {
  const result = status?.speedTest;
  if (!result) return [1, 0];
  if (result.bytesPerSecond === null) return [2, 0];
  return [0, -result.bytesPerSecond];
}

/**
 * The rows of the virtualized server list: a header per subscription in list order, then its
 * servers (filtered, optionally sorted by ping or by speed-test speed). Statuses are an input only when the filter or the
 * sort need them, so a burst of ping updates does not rebuild a 5,000-row list.
 */
export const selectListRows = memoSelector(
  (state: AppState) =>
    [
      state.subscriptions,
      state.filter,
      state.sort,
      state.collapsed,
      state.filter.trim() !== '' || state.sort !== 'list' ? state.statuses : null,
    ] as const,
  ([subscriptions, filter, sort, collapsed, statuses]): ListRow[] => {
    const needle = filter.trim().toLocaleLowerCase();
    const rows: ListRow[] = [];
    for (const subscription of subscriptions) {
      let servers = subscription.servers.filter((server) => matchesFilter(server, statuses?.[server.id], needle));
      if (sort !== 'list' && statuses) {
        const rankOf = sort === 'ping' ? pingRank : speedRank;
        servers = servers
          .map((server, index) => ({ server, index, rank: rankOf(statuses[server.id]) }))
          .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index)
          .map((entry) => entry.server);
      }
      rows.push({ kind: 'subscription', key: `s:${subscription.id}`, subscriptionId: subscription.id, matched: servers.length });
      if (collapsed[subscription.id]) continue;
      if (servers.length === 0) {
        const reason = subscription.servers.length === 0 ? 'no-servers' : 'no-match';
        rows.push({ kind: 'empty', key: `e:${subscription.id}`, subscriptionId: subscription.id, reason });
      }
      servers.forEach((server, position) =>
        rows.push({ kind: 'server', key: `v:${server.id}`, serverId: server.id, subscriptionId: subscription.id, position }),
      );
    }
    return rows;
  },
);

/** The servers the filter lets through, in list order (collapsed subscriptions too): the search is the selection a speed test may take. */
export const selectShownServerIds = memoSelector(
  (state: AppState) => [state.subscriptions, state.filter, state.filter.trim() !== '' ? state.statuses : null] as const,
  ([subscriptions, filter, statuses]): ServerId[] => {
    const needle = filter.trim().toLocaleLowerCase();
    return subscriptions.flatMap((subscription) => subscription.servers.filter((server) => matchesFilter(server, statuses?.[server.id], needle)).map((server) => server.id));
  },
);

/** Everything one row shows; each field keeps its identity so `useShallow` skips unchanged rows. */
export interface ServerRowModel {
  server: ListServer | undefined;
  status: ListStatus | undefined;
  unsupported: string | undefined;
  isCurrent: boolean;
  connectionState: AppState['connection']['state'] | null;
  isExcluded: boolean;
  autoOn: boolean;
}

export function selectServerRow(state: AppState, id: ServerId, subscriptionId: SubscriptionId): ServerRowModel {
  const current = state.connection.serverId === id;
  return {
    server: selectServer(state, id),
    status: state.statuses[id],
    unsupported: state.unsupported[id],
    isCurrent: current,
    connectionState: current ? state.connection.state : null,
    isExcluded: state.auto.excluded[subscriptionId]?.includes(id) ?? false,
    autoOn: state.auto.subscriptionId === subscriptionId,
  };
}

/** Used / total traffic of a subscription and how full it is (0..1), when the provider says. */
export function usageOf(subscription: ListSubscription): { used: number; total: number | null; fraction: number | null; expire: number | null } | null {
  const usage = subscription.usage;
  if (!usage) return null;
  const used = (usage.upload ?? 0) + (usage.download ?? 0);
  const total = usage.total && usage.total > 0 ? usage.total : null;
  return {
    used,
    total,
    fraction: total ? Math.min(1, used / total) : null,
    expire: usage.expire && usage.expire > 0 ? usage.expire * 1000 : null,
  };
}
