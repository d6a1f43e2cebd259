/**
 * Test helpers: run a scenario object through the real simulator and read its lines compactly,
 * e.g. `125000 check stall fi,nl,de`, `130000 fi silent`, `130000 switch fi>nl current-silent`.
 */
import type { Settings } from '../../../shared/settings';
import { runScenario, type SimLine } from '../sim/run';
import { validateScenario } from '../sim/scenario';

export async function simulate(input: unknown, settings?: Settings): Promise<SimLine[]> {
  const parsed = validateScenario(input);
  if (!parsed.ok) throw new Error(parsed.error);
  return runScenario(parsed.scenario, settings ? { settings } : {});
}

export interface BriefOptions {
  /** Include probe-result lines (default true). */
  results?: boolean;
  /** Include the end line (default false). */
  end?: boolean;
  /** Include the `prepare` lines of stalls (default false: they precede every stall check). */
  prepare?: boolean;
  /** Include the `transfer-test` lines (default false: the current server's is tested every minute of use). */
  transfers?: boolean;
}

export function brief(lines: SimLine[], options: BriefOptions = {}): string[] {
  return lines.flatMap((l) => {
    const text = briefLine(l);
    if (l.type === 'probe-result' && options.results === false) return [];
    if (l.type === 'end' && !options.end) return [];
    if (l.type === 'prepare' && !options.prepare) return [];
    if (l.type === 'transfer-test' && !options.transfers) return [];
    return [text];
  });
}

function briefLine(l: SimLine): string {
  const at = l.at;
  switch (l.type) {
    case 'check': {
      const transfer = l.transfer as { bytes: number } | undefined;
      return `${at} check ${String(l.trigger)} ${(l.probe as string[]).join(',')}${transfer ? ` after ${transfer.bytes} B` : ''}`;
    }
    case 'prepare':
      return `${at} prepare ${(l.probe as string[]).join(',')}`;
    case 'probe-result':
      return `${at} ${String(l.id)} ${l.delay === null ? 'silent' : String(l.delay)}${l.recorded ? '' : ' unrecorded'}`;
    case 'stay':
      return `${at} stay ${String(l.id)} ${String(l.reason)}${l.candidate ? ` ${String(l.candidate)} ${String(l.answers)}/${String(l.needed)}` : ''}`;
    case 'switch':
      return `${at} switch ${String(l.from)}>${String(l.to)} ${String(l.reason)}`;
    case 'network-lost':
      return `${at} network-lost ${String(l.attempt)} next ${String(l.next_in_ms)}`;
    case 'rate-limited':
      return `${at} rate-limited until ${String(l.until)}`;
    case 'pause':
      return `${at} pause ${String(l.reason)} until ${String(l.until)}`;
    case 'transfer-test':
      return `${at} transfer-test ${String(l.id)} ${String(l.verdict)}`;
    case 'event-test':
      return `${at} event-test ${String(l.id)} ${l.delay === null ? 'silent' : String(l.delay)}`;
    case 'refused':
      return `${at} refused ${String(l.action)}`;
    case 'end':
      return `end current=${String(l.current)}`;
    default:
      return `${at} ${l.type}`;
  }
}

/** A small world most rule tests start from: A = fi, de, nl (Finland first by score), B below it. */
export function baseScenario(overrides: Record<string, unknown> = {}, world: unknown[] = []): Record<string, unknown> {
  return {
    subscriptions: [
      { id: 'A', servers: ['fi', 'de', 'nl'] },
      { id: 'B', servers: ['b1', 'b2'] },
    ],
    auto: 'A',
    current: 'fi',
    history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [70, 72, 71] },
    world: [{ at: '0s', network: 'online', traffic: 'active', servers: { fi: 60, de: 25, nl: 71, b1: 50, b2: 70 } }, ...world],
    until: '10m',
    ...overrides,
  };
}
