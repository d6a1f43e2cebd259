import type { AppProblem, ProblemTopic } from '../../shared/domain/problem';
import type { Clock } from '../clock';
import type { LogSink } from '../log/logger';
import { Signal } from '../events';

/**
 * What the user should know, kept until they dismiss it: problems met at start and failed saves at
 * run time. A problem with the same key replaces the earlier one (one line per file, not one per
 * failed save).
 */
export class ProblemBoard {
  private problems: (AppProblem & { key: string })[] = [];
  private seq = 0;
  private readonly changes = new Signal<AppProblem[]>('problems');

  constructor(private readonly clock: Clock) {}

  add(key: string, message: string, severity: AppProblem['severity'] = 'warning', topic?: ProblemTopic): void {
    const problem = { id: `p${++this.seq}`, key, at: this.clock.now(), severity, message, ...(topic ? { topic } : {}) };
    this.problems = [...this.problems.filter((p) => p.key !== key), problem];
    this.changed();
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

  /**
   * A log sink that puts a failed save on the board (a line carrying a `save-failed` problem): the
   * app keeps its in-memory state and goes on, but the user must know that what they see may not
   * survive a restart.
   */
  saveFailures(): LogSink {
    return (record) => {
      const problem = record.problem;
      if (problem?.topic.kind !== 'save-failed') return;
      this.add(`save:${problem.topic.file}`, problem.detail, 'error', problem.topic);
    };
  }

  private changed(): void {
    const list = this.list();
    this.changes.emit(list);
  }
}
