/**
 * Auto's reducer driven the way its runtime drives it, for the policy's table tests: events at
 * times counted from T0, the state after each, and every command it gave so far.
 */
import type { AutoDecision } from '../../../shared/domain/auto';
import type { AutoConfig } from '../policy/constants';
import { initialState, NOTHING_PERSISTED, type PersistedAutoState } from '../policy/state';
import { step } from '../policy/step';
import type { AutoCommand, AutoEvent, AutoState } from '../policy/types';
import { worldOf, type WorldData } from '../policy/world';

export const T0 = Date.UTC(2026, 0, 1, 12);

/** The desktop's stall threshold and the default probe timeout. */
export const DESKTOP_CONFIG = { stallThresholdMs: 5000, probeTimeoutMs: 5000 };

export interface ReducerRun {
  /** Steps the reducer with `event` at T0 + atMs; returns the commands of this step. */
  send(event: AutoEvent, atMs?: number): AutoCommand[];
  readonly state: AutoState;
  /** Every command so far, in order. */
  readonly commands: readonly AutoCommand[];
  /** Every decision logged so far. */
  decisions(): AutoDecision[];
  /** The check id of the latest probe command (also once its check ended: late answers), or -1. */
  lastProbeCheckId(): number;
}

/** Auto on subscription A of `data` (unless `persisted` says otherwise), from T0. */
export function runReducer(data: WorldData, options: { config?: AutoConfig; persisted?: Partial<PersistedAutoState> } = {}): ReducerRun {
  const world = worldOf(data);
  let state: AutoState = initialState(options.config ?? DESKTOP_CONFIG, { ...NOTHING_PERSISTED, subscriptionId: 'A', ...options.persisted }, T0);
  const commands: AutoCommand[] = [];
  return {
    send(event, atMs = 0) {
      const result = step(state, event, T0 + atMs, world);
      state = result.state;
      commands.push(...result.commands);
      return result.commands;
    },
    get state() {
      return state;
    },
    commands,
    decisions: () => commands.flatMap((c) => (c.kind === 'log' ? [c.decision] : [])),
    lastProbeCheckId: () => commands.flatMap((c) => (c.kind === 'probe' ? [c.checkId] : [])).at(-1) ?? -1,
  };
}
