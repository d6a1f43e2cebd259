import { describe, it } from 'vitest';
import { assertTarget } from './assert-target';

describe('headless host under fuzzing', () => {
  // A real host on loopback: every text frame gets exactly one answer; an invalid one a clear
  // error with its id (when it had one) and never a service call; the connection survives.
  it('random and mutated WebSocket frames', () => assertTarget('headless-host', 400), 30_000);
});
