/**
 * The contract's operations, each answered by the service that owns it: the engine's composition
 * root builds the services and hands them here; hosts see only the contract.
 */
import type { InvokeRequest } from '../../shared/ipc/contract';
import type { Settings } from '../../shared/settings';
import { EngineRefusal } from '../../shared/domain/refusal';
import type { ImportInbox } from '../imports/inbox';
import type { Monitor } from '../monitor/monitor';
import type { ReachabilityRuntime } from '../reachability';
import type { HouseholdSharing } from '../sharing/sharing';
import type { SubscriptionStore } from '../subscriptions/store';
import { listApps } from '../system-wide/per-app/app-list';
import type { AutoRuntime } from '../auto/runtime';
import type { ConnectionState } from '../../shared/domain/connection';
import { connectionHandlers } from './connection';
import type { ContractHandlers } from './contract-handlers';
import { coreListOf } from './core-list';
import { surveyCores } from './core-survey';
import type { ProblemBoard } from './problems';
import type { ServerCatalog } from './server-catalog';
import type { SettingsPath } from './settings-path';
import { type SnapshotSources, windowSnapshot } from './snapshot';
import { subscriptionOperations } from './subscription-operations';
import { measurementOperations } from './test-operations';
import { speedTestOperations } from './speed-test-operations';
import type { TunnelDriver } from './tunnel-driver';
import type { WindowStatuses } from './window-statuses';
import type { GroupPicks } from './group-picks';

export interface ContractServices {
  snapshot: SnapshotSources;
  /** The cores as found at start: a core chosen in Settings since then takes a restart, as the tunnel's does. */
  coresWanted: { corePath: string | null; resourcesDir: string | undefined };
  catalog: ServerCatalog;
  driver: TunnelDriver;
  auto: AutoRuntime;
  groupPicks: Pick<GroupPicks, 'setExcluded'>;
  monitor: Monitor;
  statuses: WindowStatuses;
  reachability: ReachabilityRuntime;
  subscriptions: SubscriptionStore;
  imports: ImportInbox;
  settingsPath: SettingsPath;
  board: ProblemBoard;
  sharing: HouseholdSharing;
  settings(): Settings;
  connection(): ConnectionState;
  /** The demo world's control (absent outside the demo). */
  labControl?: (request: InvokeRequest<'labControl'>) => Promise<void>;
}

export function contractHandlers(s: ContractServices): ContractHandlers {
  const { monitor, catalog } = s;
  return {
    getSnapshot: async () => windowSnapshot(s.snapshot),
    listCores: async () => coreListOf(await surveyCores(s.coresWanted), catalog.index.all()).list,
    ...connectionHandlers({ driver: s.driver, auto: s.auto, catalog, delayOf: (id) => monitor.status(id).delayMs, testConnected: (id) => void monitor.testNow([id], 'selection'), state: s.connection }),
    ...subscriptionOperations({
      subscriptions: s.subscriptions,
      auto: { setAuto: (id) => s.auto.setAuto(id), setExcluded: (id, ids) => s.auto.setExcluded(id, ids), snapshot: () => s.snapshot.auto.snapshot() },
      groups: s.groupPicks,
      index: catalog.index,
      imports: s.imports,
    }),
    ...measurementOperations(monitor, s.statuses, catalog.index, s.reachability),
    ...speedTestOperations(monitor, catalog),
    ...s.settingsPath.handlers(),
    dismissProblem: async (r) => {
      s.board.dismiss(r.id);
      return null;
    },
    getSharing: async () => s.sharing.view(),
    sharingCredentials: async () => s.sharing.credentials(),
    listApps: (r) => listApps(r.entries, { language: s.settings().language === 'system' ? undefined : s.settings().language }),
    captureScreen: async () => {
      throw new EngineRefusal('screen-reading-unavailable', 'reading the screen is possible only in the desktop app');
    },
    labControl: async (r) => {
      if (!s.labControl) throw new EngineRefusal('lab-unavailable', 'the Lab panel exists only in the demo');
      await s.labControl(r);
      return null;
    },
  };
}
