import { describe, expect, it } from 'vitest';
import type { AutoDecision } from '../../shared/domain/auto';
import { describeDecision } from './describe';

const at = Date.UTC(2026, 0, 1);

describe('AUTO log lines', () => {
  it.each<[AutoDecision, string]>([
    [{ type: 'check', at, trigger: 'scheduled', probe: ['nl', 'fi', 'de'] }, 'check (scheduled): probing nl, fi, de'],
    [
      { type: 'check', at, trigger: 'dial-failure', probe: ['fi', 'de'], inHand: [{ id: 'de', delay: 26, ageMs: 6200 }] },
      'check (dial-failure): probing fi, de; answers in hand: de 26 ms (6.2 s ago)',
    ],
    [
      { type: 'check', at, trigger: 'dial-failure', probe: ['fi', 'de'], failure: 'reset' },
      'check (dial-failure: reset): probing fi, de',
    ],
    [
      { type: 'check', at, trigger: 'freeze', probe: ['A1', 'A6'], transfer: { server: 'A1', verdict: 'freezes', bytes: 16_200 } },
      'check (freeze: traffic freezes after 16 KB on A1): probing A1, A6',
    ],
    [
      { type: 'check', at, trigger: 'freeze', probe: ['A1', 'A6'], transfer: { server: 'A1', verdict: 'throttled', bytes: 65_536 } },
      'check (freeze: traffic on A1 is throttled below 32 KB/s): probing A1, A6',
    ],
    [{ type: 'stay', at, id: 'A1', reason: 'nothing-passes' }, 'stay on A1: nothing-passes'],
    [{ type: 'probe-result', at, id: 'fi', delay: null, recorded: false }, 'probe fi: no answer (not recorded)'],
    [{ type: 'probe-result', at, id: 'nl', delay: 71, recorded: true }, 'probe nl: 71 ms'],
    [{ type: 'stay', at, id: 'nl', reason: 'current-answered' }, 'stay on nl: current-answered'],
    [{ type: 'stay', at, id: 'nl', reason: 'return-pending', ...{ candidate: 'fi', answers: 1, needed: 2 } }, 'stay on nl: return-pending (fi answered 1 of 2)'],
    [{ type: 'switch', at, from: 'fi', to: 'nl', reason: 'current-silent' }, 'switch fi → nl: current-silent'],
    [{ type: 'switch', at, from: null, to: 'nl', reason: 'auto-on' }, 'switch (none) → nl: auto-on'],
    [{ type: 'network-lost', at, attempt: 4, next_in_ms: 120_000 }, 'network lost (attempt 4): staying, nothing recorded, next try in 120 s'],
    [{ type: 'rate-limited', at, until: at + 60_000 }, 'a switch was due but 3 switches happened in 3 minutes: waiting until 2026-01-01T00:01:00.000Z'],
    [{ type: 'pause', at, until: at + 15_000, reason: 'after-check' }, 'a check was due but after-check holds it until 2026-01-01T00:00:15.000Z'],
  ])('%o', (decision, line) => {
    expect(describeDecision(decision)).toBe(line);
  });
});
