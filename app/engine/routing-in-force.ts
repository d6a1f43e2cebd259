/**
 * The routing the tunnel runs with, kept in step with the settings. A change of the routing is put
 * on the tunnel before it is saved (settings-path.ts): a routing the core refuses leaves the
 * running tunnel and the saved settings as they were, and the error names why.
 */
import type { RoutingView } from '../../shared/domain/routing';
import type { Settings } from '../../shared/settings';
import type { CoreRouting } from '../core';
import type { Logger } from '../log/logger';
import type { RoutingService, RoutingState } from '../routing/service';

/** The tunnel as far as routing goes: resolves true when its core was restarted with the routing. */
export interface RoutingTarget {
  setRouting(routing: CoreRouting | undefined): Promise<boolean>;
}

/** A routing put in force ahead of its save: the window's view of it, and how to go back. */
export interface RoutingAhead {
  view: RoutingView;
  undo(): Promise<void>;
}

export class RoutingInForce {
  constructor(
    private readonly service: Pick<RoutingService, 'stateFor'>,
    /** What the tunnel was built with. */
    private state: RoutingState,
    private readonly tunnel: RoutingTarget | null,
    private readonly logger: Logger,
  ) {}

  view(): RoutingView {
    return this.state.view;
  }

  /**
   * Puts the routing of `next` in force ahead of its save (the core restarts only when what it
   * runs changes). Throws when the core refuses it; then nothing changed.
   */
  async putAhead(next: Pick<Settings, 'routing' | 'dns'>): Promise<RoutingAhead> {
    const candidate = this.service.stateFor(next);
    const previous = this.state;
    const coreChanges = candidate.key !== previous.key;
    if (coreChanges && (await this.tunnel?.setRouting(candidate.routing))) this.logger.info('ENGINE', 'routing changed: the core restarted on the same server');
    this.state = candidate;
    return {
      view: candidate.view,
      undo: async () => {
        this.state = previous;
        if (coreChanges) await this.tunnel?.setRouting(previous.routing);
      },
    };
  }

  /**
   * The rule-set copies changed under the same settings: their routing is put in force. Returns
   * the view when the window's changed.
   */
  ruleSetsChanged(settings: Pick<Settings, 'routing' | 'dns'>): RoutingView | null {
    const candidate = this.service.stateFor(settings);
    if (candidate.key === this.state.key && JSON.stringify(candidate.view) === JSON.stringify(this.state.view)) return null;
    if (candidate.key !== this.state.key) {
      void this.tunnel?.setRouting(candidate.routing).catch((error: unknown) => this.logger.warn('ENGINE', `routing: ${String(error)}`));
    }
    this.state = candidate;
    return candidate.view;
  }
}
