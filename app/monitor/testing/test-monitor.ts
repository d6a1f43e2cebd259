/**
 * A monitor for tests and benchmarks that count only delay and transfer tests: it may be built
 * without IP-info lookups. The product's MonitorOptions carry no such switch.
 */
import { composeMonitor, type MonitorOptions } from '../compose';
import { Monitor } from '../monitor';

export interface TestMonitorOptions extends MonitorOptions {
  /** Look up exit IP and country after successful tests (default true). */
  ipInfo?: boolean;
}

export function testMonitor({ ipInfo = true, ...options }: TestMonitorOptions): Monitor {
  return new Monitor(options, composeMonitor(options, { ipInfoLookups: ipInfo }));
}
