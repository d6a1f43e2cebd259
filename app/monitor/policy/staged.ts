/**
 * The staged on-demand test (spec/monitor.md), as a pure state machine: the runtime feeds it
 * attempt outcomes and stage times, and carries out the commands it returns.
 *
 * - The first attempt starts at once.
 * - If it fails, or no answer has come by stage 1, the server shows "down for now" — only when
 *   nothing is known about it in this run (no result, or only last run's cached one).
 * - A failed attempt is retried at the next stage, at every stage but the last, which is the
 *   deadline of all attempts. An attempt still in flight at a stage is left to answer, so each
 *   server is pinged once unless its ping fails.
 * - An answer ends the test at once, however late.
 * - When the last attempt fails and no stage is left to retry at, it ends without waiting for the
 *   deadline.
 * - A server that worked in this run starts at stage 2 and never shows "down for now".
 */
import type { ProbeError, ProbeOutcome } from '../../../shared/domain/measurement';

export interface StagedPlan {
  /** Stage times from the start (ms), ascending; the last is the deadline of all attempts. */
  stagesMs: number[];
  /** "Down for now" may be shown: nothing is known about the server in this run. */
  mayShowDown: boolean;
}

export function planStagedTest(onDemandTimeoutsMs: readonly number[], workedThisRun: boolean): StagedPlan {
  const stages = [...onDemandTimeoutsMs].sort((a, b) => a - b);
  if (stages.length === 0) throw new Error('a staged test needs at least one stage');
  if (workedThisRun) return { stagesMs: stages.length > 1 ? stages.slice(1) : stages, mayShowDown: false };
  return { stagesMs: stages, mayShowDown: true };
}

export interface StagedState {
  plan: StagedPlan;
  /** Index of the next stage to be reached. */
  nextStage: number;
  attemptInFlight: boolean;
  /** The last attempt failed and waits for the next stage to be retried. */
  retryWaiting: boolean;
  attempts: number;
  downForNow: boolean;
  lastError: ProbeError | null;
  /** Set once the test has ended. */
  outcome: ProbeOutcome | null;
}

export type StagedEvent =
  | { type: 'answered'; delayMs: number }
  | { type: 'failed'; error: ProbeError }
  /** The stage with this index has been reached (the runtime's wake-up). */
  | { type: 'stage'; index: number };

export type StagedCommand =
  /** Start an attempt (or join the one in flight) with this much time left until the deadline. */
  | { type: 'attempt'; number: number; timeoutMs: number }
  | { type: 'down-for-now' }
  /** Wake the machine with a `stage` event at this time from the start. */
  | { type: 'wake'; index: number; atMs: number }
  | { type: 'finish'; outcome: ProbeOutcome };

export interface StagedStep {
  state: StagedState;
  commands: StagedCommand[];
}

export function startStaged(plan: StagedPlan): StagedStep {
  const deadline = plan.stagesMs[plan.stagesMs.length - 1] as number;
  const state: StagedState = {
    plan,
    nextStage: 0,
    attemptInFlight: true,
    retryWaiting: false,
    attempts: 1,
    downForNow: false,
    lastError: null,
    outcome: null,
  };
  return {
    state,
    commands: [
      { type: 'attempt', number: 1, timeoutMs: deadline },
      { type: 'wake', index: 0, atMs: plan.stagesMs[0] as number },
    ],
  };
}

export function stepStaged(state: StagedState, event: StagedEvent, elapsedMs: number): StagedStep {
  if (state.outcome) return { state, commands: [] };
  const stages = state.plan.stagesMs;
  const lastIndex = stages.length - 1;
  const deadline = stages[lastIndex] as number;
  switch (event.type) {
    case 'answered': {
      const outcome: ProbeOutcome = { ok: true, delayMs: event.delayMs };
      return finish({ ...state, attemptInFlight: false }, outcome);
    }
    case 'failed': {
      let next: StagedState = { ...state, attemptInFlight: false, lastError: event.error };
      const commands: StagedCommand[] = [];
      // Retries start only at stages before the last; none left means the test is over now.
      if (next.nextStage >= lastIndex) return finish(next, { ok: false, error: event.error });
      if (next.plan.mayShowDown && !next.downForNow) {
        next = { ...next, downForNow: true };
        commands.push({ type: 'down-for-now' });
      }
      next = { ...next, retryWaiting: true };
      return { state: next, commands };
    }
    case 'stage': {
      if (event.index !== state.nextStage) return { state, commands: [] };
      if (event.index >= lastIndex) {
        const error: ProbeError = state.attemptInFlight
          ? { kind: 'timeout', message: `no answer within ${formatSeconds(deadline)}` }
          : (state.lastError ?? { kind: 'timeout', message: `no answer within ${formatSeconds(deadline)}` });
        return finish({ ...state, attemptInFlight: false }, { ok: false, error });
      }
      let next: StagedState = { ...state, nextStage: event.index + 1 };
      const commands: StagedCommand[] = [];
      if (next.plan.mayShowDown && !next.downForNow && next.attemptInFlight) {
        next = { ...next, downForNow: true };
        commands.push({ type: 'down-for-now' });
      }
      if (next.retryWaiting) {
        next = { ...next, retryWaiting: false, attemptInFlight: true, attempts: next.attempts + 1 };
        commands.push({ type: 'attempt', number: next.attempts, timeoutMs: Math.max(1, deadline - elapsedMs) });
      }
      commands.push({ type: 'wake', index: event.index + 1, atMs: stages[event.index + 1] as number });
      return { state: next, commands };
    }
  }
}

function finish(state: StagedState, outcome: ProbeOutcome): StagedStep {
  return { state: { ...state, outcome, downForNow: false, retryWaiting: false }, commands: [{ type: 'finish', outcome }] };
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
