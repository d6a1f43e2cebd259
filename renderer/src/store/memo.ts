/**
 * Remembers a derived value until one of its inputs changes (compared with Object.is), so a
 * selector that builds an array returns the same array for the same inputs and React does not
 * re-render for nothing.
 */
export function memoSelector<S, Deps extends readonly unknown[], R>(
  inputs: (state: S) => Deps,
  compute: (deps: Deps) => R,
): (state: S) => R {
  let lastDeps: Deps | null = null;
  let lastResult: R;
  return (state: S) => {
    const deps = inputs(state);
    const previous = lastDeps;
    if (previous && deps.length === previous.length && deps.every((dep, i) => Object.is(dep, previous[i]))) {
      return lastResult;
    }
    lastDeps = deps;
    lastResult = compute(deps);
    return lastResult;
  };
}
