import type { ParseResult } from '../../../app/auto/sim/scenario';
import { ensure, show } from './violation';

const FIELDS = /^(scenario|platform|subscriptions|auto|current|excluded|history|world|until|reconnect)\b/;

/** A scenario is either runnable (finite times, world in order) or refused with one error naming the field. */
export function checkScenario(result: ParseResult): void {
  ensure(result !== null && typeof result === 'object' && typeof result.ok === 'boolean', () => `result ${show(result)}`);
  if (!result.ok) {
    ensure(typeof result.error === 'string' && FIELDS.test(result.error), () => `the error names no field: ${show(result.error)}`);
    ensure(result.error.length <= 1000, () => `error of ${result.error.length} characters`);
    return;
  }
  const s = result.scenario;
  // The simulator advances its clock to `until`: a time that never comes would never end the run.
  ensure(Number.isFinite(s.until) && s.until > 0, () => `until is ${show(s.until)}`);
  ensure(Number.isFinite(s.reconnect) && s.reconnect >= 0, () => `reconnect is ${show(s.reconnect)}`);
  let previous = -Infinity;
  for (const [i, entry] of s.world.entries()) {
    ensure(Number.isFinite(entry.at) && entry.at >= 0, () => `world[${i}].at is ${show(entry.at)}`);
    ensure(entry.at >= previous, () => `world[${i}] is out of order`);
    previous = entry.at;
  }
  ensure(s.subscriptions.length > 0, 'no subscription');
}
