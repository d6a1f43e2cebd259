/**
 * The one way a settings change goes, whoever asks for it (the window, the CLI, the tray): the
 * patch is validated once against the settings in force, its effects are worked out (a pure rule,
 * settings-changes.ts), a routing change is put on the tunnel ahead of the save and undone when
 * the save fails, the settings are saved once, every service hears its part, and the window hears
 * once. Changes run one at a time, each on the last.
 */
import type { RoutingView } from '../../shared/domain/routing';
import type { Settings, SettingsPatch } from '../../shared/settings';
import type { SettingsStore } from '../settings/store';
import type { HandlersOf } from './contract-handlers';
import type { RoutingInForce } from './routing-in-force';
import { carryOut, type EffectsContext, type SettingsTargets, settingsEffects } from './settings-changes';

export interface SettingsPathDeps {
  store: Pick<SettingsStore, 'get' | 'validate' | 'save'>;
  routing: Pick<RoutingInForce, 'putAhead'>;
  /** What the effects rule needs of the running app, read as each change is worked out. */
  context(): EffectsContext;
  targets: SettingsTargets;
  publish: { settings(settings: Settings): void; routing(view: RoutingView): void };
}

export class SettingsPath {
  private applying: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: SettingsPathDeps) {}

  /**
   * Applies a patch: resolves with the settings in force after it. Throws with the field at
   * fault, when the core refuses the routing, or when the file cannot be saved; then nothing
   * changed (the tunnel runs the routing it had).
   */
  applySettings(patch: SettingsPatch): Promise<Settings> {
    const run = this.applying.catch(() => undefined).then(() => this.apply(patch));
    this.applying = run;
    return run;
  }

  private async apply(patch: SettingsPatch): Promise<Settings> {
    const { store, routing, targets, publish } = this.deps;
    const previous = store.get();
    const next = store.validate(patch);
    const effects = settingsEffects(previous, next, this.deps.context());
    const ahead = effects.routing ? await routing.putAhead(next) : null;
    try {
      await store.save(next);
    } catch (error) {
      await ahead?.undo();
      throw error;
    }
    try {
      carryOut(effects, next, targets);
    } catch (error) {
      // The change is saved and stands; a service that could not take its part says so.
      targets.warn(`a service could not follow the settings change: ${String(error)}`);
    }
    if (ahead) publish.routing(ahead.view);
    publish.settings(next);
    return next;
  }

  handlers(): HandlersOf<'setSettings'> {
    return { setSettings: (patch) => this.applySettings(patch) };
  }
}
