/**
 * The window's whole picture at once (the contract's getSnapshot): what every event after it
 * updates piece by piece. What leaves here carries no credential (ui-view.ts).
 */
import type { AppSnapshot } from '../../shared/ipc/contract';
import type { ConnectionState } from '../../shared/domain/connection';
import type { RoutingView } from '../../shared/domain/routing';
import type { Settings } from '../../shared/settings';
import type { AutoRuntime } from '../auto/runtime';
import type { CoreProfile } from '../core';
import { antiDpiAbilities } from '../core/anti-dpi';
import type { ImportInbox } from '../imports/inbox';
import type { Monitor } from '../monitor/monitor';
import type { ProblemBoard } from './problems';
import type { ServerCatalog } from './server-catalog';
import type { WindowStatuses } from './window-statuses';

export interface SnapshotSources {
  catalog: Pick<ServerCatalog, 'listed' | 'unsupported' | 'carried'>;
  statuses: Pick<WindowStatuses, 'listed'>;
  connection(): ConnectionState;
  /** Auto's snapshot with the server groups' picks. */
  auto: Pick<AutoRuntime, 'snapshot'>;
  settings(): Settings;
  /** The core found at start (null: none). */
  profile: CoreProfile | null;
  monitor: Pick<Monitor, 'progress' | 'speedTestProgress'>;
  /** The demo world runs behind the Lab panel. */
  demo: boolean;
  board: Pick<ProblemBoard, 'list'>;
  imports: Pick<ImportInbox, 'list'>;
  routing: { view(): RoutingView };
}

export function windowSnapshot(s: SnapshotSources): AppSnapshot {
  const { profile } = s;
  return {
    subscriptions: [...s.catalog.listed()],
    statuses: s.statuses.listed(),
    unsupported: s.catalog.unsupported(),
    carried: s.catalog.carried(),
    connection: s.connection(),
    auto: s.auto.snapshot(),
    settings: s.settings(),
    core: profile ? { family: profile.family, version: profile.version, path: profile.path, antiDpi: antiDpiAbilities(profile) } : null,
    testProgress: s.monitor.progress(),
    speedTest: s.monitor.speedTestProgress(),
    demo: s.demo,
    problems: s.board.list(),
    importRequests: s.imports.list(),
    routing: s.routing.view(),
  };
}
