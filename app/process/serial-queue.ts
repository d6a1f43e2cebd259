/**
 * Runs async operations one at a time, in the order they were asked for: each starts once the one
 * before has settled, whether that succeeded or failed. The caller of `run` gets the operation's own
 * result or rejection. `onError` hears of every failure as well, for the operations started where
 * no one waits for them (a timer, an event listener) and a failure would otherwise go unseen; an
 * operation nobody waits for that fails is never an unhandled rejection.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly onError?: (error: unknown) => void) {}

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation);
    // The tail never rejects, so the next operation runs whatever this one did; catching here
    // also marks the rejection handled for the callers that do not wait (`void queue.run(...)`).
    this.tail = result.catch((error: unknown) => {
      try {
        this.onError?.(error);
      } catch {
        // A failing error sink (a logger whose file is gone) must not stop every later operation.
      }
    });
    return result;
  }
}
