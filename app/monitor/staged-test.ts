/**
 * Runs the staged on-demand test's state machine (policy/staged.ts) against real time: attempts
 * go through Flights (so an attempt joins a test of the same server already in the air), stage
 * wake-ups are clock timers, "down for now" and the final outcome are reported to the caller.
 */
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { Clock, TimerHandle } from '../clock';
import type { Flights } from './flights';
import { type StagedCommand, type StagedEvent, type StagedPlan, startStaged, stepStaged } from './policy/staged';

export interface StagedContext {
  clock: Clock;
  flights: Flights;
  url: string;
  plan: StagedPlan;
  onDownForNow: () => void;
  log: (line: string) => void;
}

export interface StagedOutcome {
  outcome: ProbeOutcome;
  at: number;
  /** The flight whose outcome ended the test; absent when the deadline ended it. */
  flight?: number;
  attempts: number;
}

export function runStagedTest(serverId: ServerId, ctx: StagedContext): Promise<StagedOutcome> {
  const { clock } = ctx;
  const startedAt = clock.now();
  const elapsed = () => clock.now() - startedAt;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
  return new Promise((resolve) => {
    const first = startStaged(ctx.plan);
    let state = first.state;
    let eventFlight: number | undefined;
    const timers = new Set<TimerHandle>();

    const feed = (event: StagedEvent, flight?: number) => {
      if (state.outcome) return;
      eventFlight = flight;
      const next = stepStaged(state, event, elapsed());
      state = next.state;
      execute(next.commands);
    };

    const execute = (commands: StagedCommand[]) => {
      for (const command of commands) {
        switch (command.type) {
          case 'attempt': {
            const flight = ctx.flights.probe(serverId, ctx.url, command.timeoutMs);
            const joined = flight.startedAt < clock.now();
            ctx.log(
              `attempt ${command.number} at ${seconds(elapsed())}` +
                (joined ? ' (joins the test already in flight)' : `, deadline in ${seconds(command.timeoutMs)}`),
            );
            void flight.promise.then((result) => {
              if (result.outcome.ok) {
                ctx.log(`answer at ${seconds(elapsed())}: ${result.outcome.delayMs} ms`);
                feed({ type: 'answered', delayMs: result.outcome.delayMs }, result.flight);
              } else {
                ctx.log(`attempt failed at ${seconds(elapsed())}: ${result.outcome.error.kind}: ${result.outcome.error.message}`);
                feed({ type: 'failed', error: result.outcome.error }, result.flight);
              }
            });
            break;
          }
          case 'down-for-now':
            ctx.log(`no answer by ${seconds(elapsed())}: shown as down for now`);
            ctx.onDownForNow();
            break;
          case 'wake': {
            const timer = clock.after(Math.max(0, command.atMs - elapsed()), () => {
              timers.delete(timer);
              ctx.log(`stage at ${seconds(command.atMs)} reached`);
              feed({ type: 'stage', index: command.index });
            });
            timers.add(timer);
            break;
          }
          case 'finish':
            for (const timer of timers) timer.cancel();
            timers.clear();
            resolve({ outcome: command.outcome, at: clock.now(), flight: eventFlight, attempts: state.attempts });
            break;
        }
      }
    };

    execute(first.commands);
  });
}
