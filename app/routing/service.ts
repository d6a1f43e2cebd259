/**
 * Routing as a service: the shipped region data loaded once, the plan for the current settings,
 * and what is in force in words. The engine hands the plan to the tunnel; this module never
 * touches the tunnel itself.
 */
import type { RoutingView } from '../../shared/domain/routing';
import type { Settings } from '../../shared/settings';
import { type CoreProfile, type CoreRouting, groupTag, routingSections, TUNNEL_TAGS } from '../core';
import { type RoutingPlan, routingPlan } from './policy/plan';
import { loadRegionData, type RegionDataLoad } from './region-data/load';
import type { RuleSetStore } from './rule-sets/store';

/** The rule sets' copies as routing reads them (rule-sets/store.ts). */
export type RuleSetSource = Pick<RuleSetStore, 'routes' | 'status' | 'dir'>;

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
    private readonly ruleSets: RuleSetSource | null,
  ) {}

  static async create(resourcesDir: string | undefined, core: CoreProfile | null, ruleSets: RuleSetSource | null = null): Promise<RoutingService> {
    return new RoutingService(await loadRegionData(resourcesDir), core, ruleSets);
  }

  /** Built from data already loaded (tests, the CLI's routing file). */
  static fromData(data: RegionDataLoad, core: CoreProfile | null, ruleSets: RuleSetSource | null = null): RoutingService {
    return new RoutingService(data, core, ruleSets);
  }

  /** A problem with the shipped region data, in words, or null. */
  dataProblem(): string | null {
    return 'problem' in this.data ? this.data.problem : null;
  }

  /** The routing of the settings; a rule through a group the settings define is carried (the engine picks its server). */
  stateFor(settings: Pick<Settings, 'routing' | 'dns'> & Partial<Pick<Settings, 'groups'>>): RoutingState {
    const sets = settings.routing.ruleSets;
    const setRoutes = this.ruleSets?.routes(sets) ?? [];
    const plan: RoutingPlan = routingPlan(settings.routing, settings.dns, 'problem' in this.data ? this.data : this.data.data, setRoutes);
    const coreNotices = this.core ? routingSections(plan.routing, this.core, { ...TUNNEL_TAGS, groups: new Set((settings.groups ?? []).map((g) => groupTag(g.name))) }).notices : [];
    const data = 'data' in this.data ? this.data.data : null;
    const statuses = this.ruleSets?.status(sets) ?? [];
    const setNotices = statuses.flatMap((s) =>
      !s.enabled ? [] : s.unusable ? [`rule set "${s.name}" is not used: ${s.unusable}`] : s.copy ? [] : [`rule set "${s.name}" is not in force yet: ${s.lastError ?? 'it has not been fetched'}`],
    );
    const routing = setRoutes.length > 0 && this.ruleSets ? { ...plan.routing, assetDir: this.ruleSets.dir } : plan.routing;
    return {
      routing,
      // A new copy keeps its file name: its revision tells the core to read it again.
      key: JSON.stringify({ routing, revisions: setRoutes.map((r) => r.revision) }),
      view: {
        preset: settings.routing.preset,
        presetInForce: plan.presetInForce,
        dataDate: data?.date ?? null,
        dataSource: data ? `${data.source} ${data.version} (${data.licence}; ${data.attribution})` : null,
        notices: [...plan.notices, ...setNotices, ...coreNotices],
        ...(sets.length > 0 ? { ruleSets: statuses } : {}),
      },
    };
  }
}
