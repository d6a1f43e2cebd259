import type { AppProblem, Problem } from '../../shared/domain/problem';

/**
 * Where a file's owner puts what the user must know (a save that failed, so what they see may not
 * survive a restart). The engine's problem board is the one in the app; a problem handed here
 * reaches the window whether or not anyone logs it.
 */
export interface ProblemSink {
  raise(problem: Problem, severity: AppProblem['severity']): void;
}
