/**
 * What the engine says the user should know that is not an answer to their last action: a file
 * set aside at start, a save that failed, no core. The host owns the list (it comes whole in the
 * snapshot and in each `problems` event); dismissing asks the host, and the item leaves when the
 * host's next list no longer has it, so two windows never disagree about what is still open.
 */
import type { AppProblem } from '../../../shared/domain/problem';
import { memoSelector } from './memo';
import { type AppState, type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface ProblemsSlice {
  problems: AppProblem[];
  setProblems(problems: AppProblem[]): void;
  /** Asks the host to drop the problem; a refusal becomes a notice and the problem stays. */
  dismissProblem(id: string): Promise<ActionResult<null>>;
}

/**
 * Problems kept: the host's board holds one line per kind and file, so a long list means a host
 * that raises without bound; the window keeps the ones it shows first (errors, then the newest).
 */
export const PROBLEMS_KEPT = 100;

/** `problems` within the cap, dropping what would be shown last (the same array when within). */
export function keptProblems(problems: AppProblem[]): AppProblem[] {
  if (problems.length <= PROBLEMS_KEPT) return problems;
  const kept = new Set(inShownOrder(problems).slice(0, PROBLEMS_KEPT));
  return problems.filter((p) => kept.has(p));
}

export const problemsInitialState: Pick<ProblemsSlice, 'problems'> = { problems: [] };

export function createProblemsSlice(deps: SliceDeps): ProblemsSlice {
  const { set, client } = deps;
  return {
    ...problemsInitialState,
    setProblems: (problems) => set({ problems: keptProblems(problems) }),
    dismissProblem: (id) => request(deps, 'dismissProblem', () => client.dismissProblem({ id })),
  };
}

const SEVERITY_RANK: Record<AppProblem['severity'], number> = { error: 0, warning: 1 };

/**
 * The problems in the order they are shown: errors before warnings (an error means something the
 * user did may be lost), the newest first within each. The same array until the list changes.
 */
export const selectProblemsShown = memoSelector(
  (state: Pick<AppState, 'problems'>) => [state.problems] as const,
  ([problems]): AppProblem[] => inShownOrder(problems),
);

function inShownOrder(problems: readonly AppProblem[]): AppProblem[] {
  return [...problems].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.at - a.at);
}
