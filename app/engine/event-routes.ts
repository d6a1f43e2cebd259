/**
 * Where each service's events go: the tunnel's to Auto and the monitor, every change to the window
 * as a contract event. The flow runs one way; each route returns how to take it down again (the
 * lifecycle's "events" stage does, on stop).
 */
import type { EventName, EventPayloads } from '../../shared/ipc/contract';
import type { Settings } from '../../shared/settings';
import type { AutoRuntime } from '../auto/runtime';
import type { ImportInbox } from '../imports/inbox';
import type { Logger } from '../log/logger';
import type { Monitor } from '../monitor/monitor';
import type { ReachabilityRuntime } from '../reachability';
import type { RuleSetStore } from '../routing/rule-sets/store';
import type { HouseholdSharing } from '../sharing/sharing';
import type { SubscriptionStore } from '../subscriptions/store';
import type { SystemWide } from '../system-wide/for-platform';
import type { TunnelController } from '../tunnel/controller';
import { followCaptureProblems } from './capture-problems';
import type { OwnFetchDestinations } from './own-fetches';
import type { ProblemBoard } from './problems';
import type { RoutingInForce } from './routing-in-force';
import { reportSelections } from './selection-lines';
import { followSubscriptions, type SubscriptionChangeTargets } from './subscription-changes';
import { followTestBudget } from './test-budget';
import { forwardTunnelEvents } from './tunnel-events';
import type { TunnelDriver } from './tunnel-driver';
import { statusForList } from './ui-view';
import type { WindowStatuses } from './window-statuses';
import type { GroupPicks } from './group-picks';

export interface EventSources {
  /** The tunnel with its capture binding; null without a core. */
  tunnel: { tunnel: TunnelController; unbind: () => void } | null;
  sharing: HouseholdSharing;
  auto: AutoRuntime;
  /** The server groups' pickers, beside Auto. */
  groupPicks: Pick<GroupPicks, 'membersMaybeChanged' | 'transferSeen' | 'autoMarksChanged'>;
  /** Auto's snapshot changed (its own, or a group's pick): the window hears the whole. */
  autoChanged(): void;
  monitor: Monitor;
  ownFetches: OwnFetchDestinations;
  logger: Logger;
  driver: TunnelDriver;
  capture: SystemWide;
  board: ProblemBoard;
  imports: ImportInbox;
  statuses: WindowStatuses;
  reachability: ReachabilityRuntime;
  subscriptions: SubscriptionStore;
  subscriptionTargets: SubscriptionChangeTargets;
  ruleSets: Pick<RuleSetStore, 'changed'>;
  routing: RoutingInForce;
  settings(): Settings;
  /** Sends a contract event to the hosts. */
  publish<E extends EventName>(event: E): (payload: EventPayloads[E]) => void;
}

export function routeEvents(s: EventSources): (() => void)[] {
  const { auto, monitor, publish } = s;
  const built = s.tunnel;
  return [
    ...(built
      ? [
          built.unbind,
          built.tunnel.on('loginRefused', (event) => s.sharing.loginRefused(event.at)),
          forwardTunnelEvents(built.tunnel, {
            auto,
            monitor: { trafficSeen: (at) => monitor.trafficSeen(at), connectionActivity: () => monitor.connectionActivity(), selectionChanged: () => monitor.selectionChanged(), testFailedMember: (id) => void monitor.testNow([id], 'member-failed') },
            ownFetch: (destination) => s.ownFetches.has(destination),
            log: (line) => s.logger.info('TUNNEL', line),
            wanted: () => s.driver.isWanted(),
            publish: { traffic: publish('traffic'), connection: publish('connection') },
          }),
        ]
      : []),
    s.capture.onChange((status) => followCaptureProblems(status, s.board)),
    s.imports.onChange(publish('importRequests')),
    s.board.onChange(publish('problems')),
    monitor.subscribe((list) => publish('statuses')(list.map((status) => statusForList(s.statuses.with(status))))),
    // A verdict reaches the window with the monitor's next burst of statuses, not a burst of its own.
    s.reachability.onChange(({ serverId }) => monitor.restate(serverId)),
    monitor.onProgress(publish('testProgress')),
    monitor.onSpeedTestProgress(publish('speedTestProgress')),
    followTestBudget(monitor, s.board),
    // A server the user excluded from Auto is one no group takes either.
    auto.onChange(() => (s.groupPicks.autoMarksChanged(), s.autoChanged())),
    // The current server's transfer test freezing is one of Auto's triggers.
    monitor.onTransfer((id) => auto.transferSeen(id)),
    // A group's members follow the servers and their exit countries; its pick follows Auto's rules.
    monitor.subscribe(() => s.groupPicks.membersMaybeChanged()),
    s.subscriptions.onChange(() => s.groupPicks.membersMaybeChanged()),
    monitor.onTransfer((id) => s.groupPicks.transferSeen(id)),
    reportSelections({ auto, subscriptions: s.subscriptions, monitor }),
    s.subscriptions.onChange((list) => followSubscriptions(list, s.subscriptionTargets)),
    // An updated rule-set copy is put in force (a core restart on the same server).
    s.ruleSets.changed.on(() => {
      const view = s.routing.ruleSetsChanged(s.settings());
      if (view) publish('routing')(view);
    }),
  ];
}
