import type { AppProblem, ProblemTopic } from '../../shared/domain/problem';
import type { Clock } from '../clock';
import type { LogSink } from '../log/logger';

/**
 * What the user should know, kept until they dismiss it: problems met at start and failed saves at
 * run time. A problem with the same key replaces the earlier one (one line per file, not one per
 * failed save).
 */
export class ProblemBoard {
  private problems: (AppProblem & { key: string })[] = [];
  private seq = 0;
  private readonly listeners = new Set<(problems: AppProblem[]) => void>();

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
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A log sink that turns a failed save (`could not save <path>: <reason>`, the words of
   * app/storage/json-file.ts) into a problem for the user: the app keeps its in-memory state and
   * goes on, but the user must know that what they see may not survive a restart.
   */
  saveFailures(): LogSink {
    return (record) => {
      if (record.level !== 'error' && record.level !== 'warning') return;
      const match = /could not save (\S+): (.+?)(?:\.|$)/.exec(record.message);
      if (!match) return;
      const [, path, reason] = match as unknown as [string, string, string];
      const file = path.split(/[\\/]/).pop() ?? path;
      this.add(`save:${file}`, `Could not save ${file} (${reason}). The app keeps working with what it has in memory; free some space or check the folder's permissions.`, 'error', { kind: 'save-failed', file });
    };
  }

  private changed(): void {
    const list = this.list();
    for (const listener of this.listeners) listener(list);
  }
}
