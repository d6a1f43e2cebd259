import type { AppProblem, Problem, ProblemTopic } from '../../shared/domain/problem';
import type { Clock } from '../clock';
import type { ProblemSink } from '../storage/problem-sink';
import { Signal } from '../events';

/**
 * What the user should know, kept until they dismiss it: problems met at start and failed saves at
 * run time (the board is every file owner's problem sink, so no problem travels only in the log). Each is raised as `{ topic, detail }` where it arises; its topic decides its line, so
 * a second failure of the same kind and file replaces the first (one line per file, not one per
 * failed save) and nothing compares the sentences.
 */
export class ProblemBoard implements ProblemSink {
  private problems: (AppProblem & { key: string })[] = [];
  private readonly metAtStart: Problem[] = [];
  private seq = 0;
  private readonly changes = new Signal<AppProblem[]>('problems');

  constructor(private readonly clock: Clock) {}

  raise(problem: Problem, severity: AppProblem['severity'] = 'warning'): void {
    this.put(problemKey(problem.topic), problem, severity);
  }

  /** A problem that is over (the test budget is no longer spent) leaves the board. */
  withdraw(topic: ProblemTopic): void {
    const key = problemKey(topic);
    const before = this.problems.length;
    this.problems = this.problems.filter((p) => p.key !== key);
    if (this.problems.length !== before) this.changed();
  }

  /** A problem met while the engine starts: on the board, and in `atStart()` for the CLI to print. */
  raiseAtStart(problem: Problem): void {
    this.metAtStart.push(problem);
    this.raise(problem);
  }

  atStart(): readonly Problem[] {
    return this.metAtStart;
  }

  /** The problem of this topic's line is over (e.g. the kill switch was turned off): it leaves. */
  clear(topic: ProblemTopic): void {
    const key = problemKey(topic);
    const before = this.problems.length;
    this.problems = this.problems.filter((p) => p.key !== key);
    if (this.problems.length !== before) this.changed();
  }

  dismiss(id: string): void {
    const before = this.problems.length;
    this.problems = this.problems.filter((p) => p.id !== id);
    if (this.problems.length !== before) this.changed();
  }

  list(): AppProblem[] {
    return this.problems.map(({ key: _key, ...problem }) => problem);
  }

  onChange(listener: (problems: AppProblem[]) => void): () => void {
    return this.changes.on(listener);
  }

  private put(key: string, { topic, detail }: Problem, severity: AppProblem['severity']): void {
    const problem = { id: `p${++this.seq}`, key, at: this.clock.now(), severity, topic, detail };
    this.problems = [...this.problems.filter((p) => p.key !== key), problem];
    this.changed();
  }

  private changed(): void {
    this.changes.emit(this.list());
  }
}

/** The board's line for a topic: one per kind and file. */
export function problemKey(topic: ProblemTopic): string {
  switch (topic.kind) {
    case 'file-unreadable':
      return `unreadable:${topic.file}`;
    case 'save-failed':
      return `save-failed:${topic.file}`;
    case 'no-core':
      return 'no-core';
    case 'system-wide':
      return 'system-wide';
    case 'kill-switch-left':
      return 'kill-switch';
    case 'test-budget':
      return 'test-budget';
    case 'per-app-unmatched':
      return 'per-app-unmatched';
  }
}
