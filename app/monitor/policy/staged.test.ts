import { describe, expect, it } from 'vitest';
import type { ProbeOutcome } from '../../../shared/domain/measurement';
import { type StagedCommand, type StagedEvent, planStagedTest, startStaged, stepStaged } from './staged';

const fail = { kind: 'refused' as const, message: 'connection refused' };

/** Feeds events at times and returns every command with the time it was issued. */
function run(worked: boolean, events: [number, StagedEvent][]): { at: number; command: StagedCommand }[] {
  const plan = planStagedTest([1000, 3000, 10_000], worked);
  const first = startStaged(plan);
  let state = first.state;
  const log = first.commands.map((command) => ({ at: 0, command }));
  for (const [at, event] of events) {
    const step = stepStaged(state, event, at);
    state = step.state;
    log.push(...step.commands.map((command) => ({ at, command })));
  }
  return log;
}

const summary = (log: { at: number; command: StagedCommand }[]) =>
  log.filter((e) => e.command.type !== 'wake').map((e) => `${e.at} ${e.command.type}${e.command.type === 'attempt' ? ` #${e.command.number} ${e.command.timeoutMs}` : ''}${e.command.type === 'finish' ? ` ${e.command.outcome.ok ? 'ok' : 'fail'}` : ''}`);

describe('staged on-demand test (policy)', () => {
  it('shows down for now at stage 1 when nothing answered, and a late answer at 1.5 s ends it', () => {
    const log = run(false, [
      [1000, { type: 'stage', index: 0 }],
      [1500, { type: 'answered', delayMs: 1500 }],
    ]);
    expect(summary(log)).toEqual(['0 attempt #1 10000', '1000 down-for-now', '1500 finish ok']);
  });

  it('leaves an attempt in flight alone at each stage (one ping unless it fails)', () => {
    const log = run(false, [
      [1000, { type: 'stage', index: 0 }],
      [3000, { type: 'stage', index: 1 }],
      [7000, { type: 'answered', delayMs: 7000 }],
    ]);
    expect(log.filter((e) => e.command.type === 'attempt')).toHaveLength(1);
    expect(summary(log).at(-1)).toBe('7000 finish ok');
  });

  it('retries a failed attempt at the next stage, and ends early when the last one fails', () => {
    const log = run(false, [
      [200, { type: 'failed', error: fail }],
      [1000, { type: 'stage', index: 0 }],
      [1100, { type: 'failed', error: fail }],
      [3000, { type: 'stage', index: 1 }],
      [3300, { type: 'failed', error: fail }],
    ]);
    expect(summary(log)).toEqual(['0 attempt #1 10000', '200 down-for-now', '1000 attempt #2 9000', '3000 attempt #3 7000', '3300 finish fail']);
  });

  it('fails at the deadline when the last attempt is still in flight', () => {
    const log = run(false, [
      [1000, { type: 'stage', index: 0 }],
      [3000, { type: 'stage', index: 1 }],
      [10_000, { type: 'stage', index: 2 }],
    ]);
    const finish = log.at(-1)?.command as { type: 'finish'; outcome: ProbeOutcome };
    expect(log.at(-1)?.at).toBe(10_000);
    expect(finish.outcome).toEqual({ ok: false, error: { kind: 'timeout', message: 'no answer within 10 s' } });
  });

  it('starts a server that worked in this run at stage 2, never down for now', () => {
    const plan = planStagedTest([1000, 3000, 10_000], true);
    expect(plan).toEqual({ stagesMs: [3000, 10_000], mayShowDown: false });
    const log = run(true, [
      [500, { type: 'failed', error: fail }],
      [3000, { type: 'stage', index: 0 }],
      [3400, { type: 'failed', error: fail }],
    ]);
    expect(summary(log)).toEqual(['0 attempt #1 10000', '3000 attempt #2 7000', '3400 finish fail']);
  });

  it('ignores events after the end', () => {
    const plan = planStagedTest([1000], false);
    const first = startStaged(plan);
    const done = stepStaged(first.state, { type: 'answered', delayMs: 10 }, 10);
    expect(stepStaged(done.state, { type: 'failed', error: fail }, 20).commands).toEqual([]);
  });
});
