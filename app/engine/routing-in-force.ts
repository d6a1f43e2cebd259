/**
 * The routing the tunnel runs with, kept in step with the settings. A change the user makes is
 * tried on the tunnel before it is saved: a routing the core refuses leaves the running tunnel and
 * the saved settings as they were, and the error names why.
 */
import type { RoutingView } from '../../shared/domain/routing';
import { type Settings, type SettingsPatch, settingsPatchSchema } from '../../shared/settings';
import type { CoreRouting } from '../core';
import type { Logger } from '../log/logger';
import type { RoutingService, RoutingState } from '../routing/service';
import type { SettingsStore } from '../settings/store';
import type { HandlersOf } from './contract-handlers';

/** The tunnel as far as routing goes: resolves true when its core was restarted with the routing. */
export interface RoutingTarget {
  setRouting(routing: CoreRouting | undefined): Promise<boolean>;
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
   * Puts the routing of `patch` on the tunnel ahead of its save; returns how to undo it when the
   * save fails, or null when the patch changes nothing the core runs with (or will be refused).
   */
  async tryAhead(patch: SettingsPatch, current: Pick<Settings, 'routing' | 'dns'>): Promise<(() => Promise<void>) | null> {
    if (patch.routing === undefined && patch.dns === undefined) return null;
    const parsed = settingsPatchSchema.safeParse(patch);
    if (!parsed.success) return null; // the store refuses it, naming the entry at fault
    const candidate = this.service.stateFor({ routing: parsed.data.routing ?? current.routing, dns: parsed.data.dns ?? current.dns });
    if (candidate.key === this.state.key) return null;
    const previous = this.state;
    if (await this.tunnel?.setRouting(candidate.routing)) this.logger.info('ENGINE', 'routing changed: the core restarted on the same server');
    // The core runs the new routing; the window's view follows once the settings are saved (follow()).
    this.state = { ...candidate, view: this.state.view };
    return async () => {
      this.state = previous;
      await this.tunnel?.setRouting(previous.routing);
    };
  }

  /** The settings changed: their routing is put in force. Returns the view when the window's changed. */
  follow(next: Pick<Settings, 'routing' | 'dns'>): RoutingView | null {
    const candidate = this.service.stateFor(next);
    if (candidate.key === this.state.key && JSON.stringify(candidate.view) === JSON.stringify(this.state.view)) return null;
    if (candidate.key !== this.state.key) {
      void this.tunnel?.setRouting(candidate.routing).catch((error: unknown) => this.logger.warn('ENGINE', `routing: ${String(error)}`));
    }
    this.state = candidate;
    return candidate.view;
  }
}

/** `setSettings`: a routing change is tried on the tunnel first and undone when the save fails. */
export function settingsOperations(store: Pick<SettingsStore, 'get' | 'update'>, routing: RoutingInForce): HandlersOf<'setSettings'> {
  return {
    setSettings: async (patch) => {
      const undo = await routing.tryAhead(patch, store.get());
      try {
        return await store.update(patch);
      } catch (error) {
        await undo?.();
        throw error;
      }
    },
  };
}
