/**
 * Routing as a service: the shipped region data loaded once, the plan for the current settings,
 * and what is in force in words. The engine hands the plan to the tunnel; this module never
 * touches the tunnel itself.
 */
import type { RoutingView } from '../../shared/domain/routing';
import type { Settings } from '../../shared/settings';
import { type CoreProfile, type CoreRouting, routingSections, TUNNEL_TAGS } from '../core';
import { type RoutingPlan, routingPlan } from './policy/plan';
import { loadRegionData, type RegionDataLoad } from './region-data/load';

export interface RoutingState {
  routing: CoreRouting;
  view: RoutingView;
  /** A string that changes exactly when the core's routing would (to skip needless restarts). */
  key: string;
}

export class RoutingService {
  private constructor(
    private readonly data: RegionDataLoad,
    private readonly core: CoreProfile | null,
  ) {}

  static async create(resourcesDir: string | undefined, core: CoreProfile | null): Promise<RoutingService> {
    return new RoutingService(await loadRegionData(resourcesDir), core);
  }

  /** Built from data already loaded (tests, the CLI's routing file). */
  static fromData(data: RegionDataLoad, core: CoreProfile | null): RoutingService {
    return new RoutingService(data, core);
  }

  /** A problem with the shipped region data, in words, or null. */
  dataProblem(): string | null {
    return 'problem' in this.data ? this.data.problem : null;
  }

  stateFor(settings: Pick<Settings, 'routing' | 'dns'>): RoutingState {
    const plan: RoutingPlan = routingPlan(settings.routing, settings.dns, 'problem' in this.data ? this.data : this.data.data);
    const coreNotices = this.core ? routingSections(plan.routing, this.core, TUNNEL_TAGS).notices : [];
    const data = 'data' in this.data ? this.data.data : null;
    return {
      routing: plan.routing,
      key: JSON.stringify(plan.routing),
      view: {
        preset: settings.routing.preset,
        presetInForce: plan.presetInForce,
        dataDate: data?.date ?? null,
        dataSource: data ? `${data.source} ${data.version} (${data.licence}; ${data.attribution})` : null,
        notices: [...plan.notices, ...coreNotices],
      },
    };
  }
}
