/**
 * The one way a part of the engine tells others that something happened. A listener that throws
 * is reported to `onError` and never stops the other listeners, nor the code that emitted: a
 * broken subscriber must not turn a saved settings change into a reported failure, or take the
 * tunnel down.
 */
export type Listener<T> = (payload: T) => void;

/** Where a listener's throw is reported (a service passes its logger). */
export type ListenerErrorSink = (error: unknown, event: string) => void;

/** Without a logger to hand, a listener's throw still reaches someone: the process's standard error. */
const toStandardError: ListenerErrorSink = (error, event) => {
  process.stderr.write(`a ${event} listener failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
};

/** A listener's throw as an error line of a service's log. */
export function listenerErrorsTo(logger: { error(tag: string, message: string): void }, tag: string): ListenerErrorSink {
  return (error, event) => logger.error(tag, `a ${event} listener failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** One event: subscribe with `on`, publish with `emit`. */
export class Signal<T> {
  private readonly listeners = new Set<Listener<T>>();

  constructor(
    private readonly name: string,
    private readonly onError: ListenerErrorSink = toStandardError,
  ) {}

  /** Subscribes; the returned function unsubscribes. */
  on(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Calls every listener subscribed when the emit began (one that unsubscribes meanwhile still hears this one). */
  emit(payload: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(payload);
      } catch (error) {
        this.onError(error, this.name);
      }
    }
  }

  /** Whether anyone listens (so a payload that is costly to build can be skipped). */
  get observed(): boolean {
    return this.listeners.size > 0;
  }
}

/** A typed family of signals, one per event name. */
export class Emitter<Events extends object> {
  private readonly signals = new Map<keyof Events, Signal<unknown>>();

  constructor(private readonly onError: (error: unknown, event: keyof Events) => void = (error, event) => toStandardError(error, String(event))) {}

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    return this.signal(event).on(listener);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    this.signals.get(event)?.emit(payload);
  }

  private signal<K extends keyof Events>(event: K): Signal<Events[K]> {
    let signal = this.signals.get(event) as Signal<Events[K]> | undefined;
    if (!signal) {
      signal = new Signal<Events[K]>(String(event), (error) => this.onError(error, event));
      this.signals.set(event, signal as Signal<unknown>);
    }
    return signal;
  }
}
