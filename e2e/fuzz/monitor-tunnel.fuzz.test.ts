import { describe, it } from 'vitest';
import { assertTarget } from './assert-target';

describe('IP-info answers and core log lines under fuzzing', () => {
  // An answer gives well-formed info (an IP address, an ISO country, an AS number) or a reason.
  it('IP-info answers of every format, right and wrong shapes, any status', () => assertTarget('ipinfo', 1500), 30_000);

  // A line gives at most one well-formed event, in at most 50 ms however long it is.
  it("the core's log lines", () => assertTarget('core-log-lines', 1000, [`read tcp ${'->'.repeat(20_000)}`]), 30_000);

  it('streams of core lines through the outbound-failure tracker', () => assertTarget('core-log-tracker', 300), 30_000);
});
