/**
 * The engine's services start and stop as one list, in named stages (sing-box's
 * adapter/lifecycle.go is the model):
 *
 * - `initialize`: read files, build state; nothing is sent and no timer runs yet.
 * - `start`: begin the work (timers, watchers, the monitor's first cycle).
 * - `post-start`: what needs the others running (Auto reading the monitor, the system proxy
 *   pointing at the tunnel).
 * - `started`: everything is up; late work (a first refresh) may begin.
 *
 * Every service sees every stage in the list's order before the next stage begins. A failure names
 * the service and the stage. Stopping runs in reverse order, each service once, and also after a
 * failed start: what a half-started engine opened is closed again, and one close that fails does
 * not keep the others from closing.
 */

export const STAGES = ['initialize', 'start', 'post-start', 'started'] as const;
export type Stage = (typeof STAGES)[number];

export interface Service {
  /** Named in a failure and in the log. */
  readonly name: string;
  /** Called once per stage; a service acts in the stages it cares about. */
  start?(stage: Stage): void | Promise<void>;
  /** Undoes what the service started; called once, whatever stage it reached (none at all, after an earlier service failed). */
  close?(): void | Promise<void>;
}

export class LifecycleError extends Error {
  constructor(
    readonly service: string,
    readonly stage: Stage | 'close',
    readonly reason: unknown,
  ) {
    super(`${service} failed to ${stage === 'close' ? 'close' : `start (${stage})`}: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = 'LifecycleError';
  }
}

export class Lifecycle {
  private closing: Promise<LifecycleError[]> | null = null;
  private startedAny = false;

  constructor(private readonly services: readonly Service[]) {
    const names = services.map((s) => s.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice) throw new Error(`two services are named ${twice}`);
  }

  /** Runs every stage through every service; on a failure closes all of them and throws it. */
  async start(): Promise<void> {
    if (this.closing) throw new Error('the services were closed: a lifecycle starts once');
    this.startedAny = true;
    for (const stage of STAGES) {
      for (const service of this.services) {
        try {
          await service.start?.(stage);
        } catch (reason) {
          const failure = new LifecycleError(service.name, stage, reason);
          await this.close();
          throw failure;
        }
      }
    }
  }

  /** Closes every service in reverse order, once; returns the closes that failed. */
  close(): Promise<LifecycleError[]> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<LifecycleError[]> {
    const failures: LifecycleError[] = [];
    if (!this.startedAny) return failures;
    for (const service of [...this.services].reverse()) {
      try {
        await service.close?.();
      } catch (reason) {
        failures.push(new LifecycleError(service.name, 'close', reason));
      }
    }
    return failures;
  }
}
