import { describe, expect, it } from 'vitest';
import type { ResetTrial } from './scenarios';
import { blackholeTarget, resetByKind, resetTarget, summarizeCases } from './summaries';

const STALL_MS = 5000;

function trial(over: Partial<ResetTrial>): ResetTrial {
  return {
    case: 'plain',
    server: 'A1',
    protocol: 'vmess/tcp/none',
    carrier: 'tcp',
    to_kind: 'vless/tcp/none',
    recovery_ms: 800,
    detect_ms: 100,
    trigger: 'dial-failure',
    check_ms: 300,
    reconnect_ms: 400,
    others_answered_ms: 250,
    to_server: 'A2',
    to_subscription: 'A',
    answers_in_hand: [],
    switched_on_answer_in_hand: false,
    spent: { auto_probes: 4, auto_checks: 1, prober_dials: 4, tunnel_dials: 2, lab_connections: 6, unattributed_connections: 0 },
    dial_retrying_ms: null,
    dial_failure_ms: 50,
    dial_failure_kind: 'reset',
    new_dials: [],
    ...over,
  };
}

const hysteria = (recovery_ms: number | null) =>
  trial({ case: 'from-hysteria2', server: 'RC7', protocol: 'hysteria2-salamander-hopping', carrier: 'udp', recovery_ms, trigger: 'stall', dial_failure_ms: null, dial_failure_kind: null });

describe('blackholeTarget', () => {
  it('meets stall + 0.6 s at the median and stall + 1.5 s at p95', () => {
    const t = blackholeTarget([5400, 5500, 5600, 5500, 6000].map((recovery_ms) => trial({ recovery_ms })), STALL_MS);
    expect(t).toEqual({ median_le_ms: 5600, p95_le_ms: 6500, median_met: true, p95_met: true });
  });

  it('misses when a trial never recovered, however fast the others were', () => {
    const t = blackholeTarget([5400, 5500, 5400, 5500, null].map((recovery_ms) => trial({ recovery_ms })), STALL_MS);
    expect(t.median_met).toBe(true);
    expect(t.p95_met).toBe(false);
  });
});

describe('resetTarget', () => {
  it('holds the 1 s goal for TCP kinds only, and the blackhole goal for each UDP kind', () => {
    const trials = [
      ...[700, 800, 900].map((recovery_ms) => trial({ recovery_ms })),
      ...[600, 650, 700].map((recovery_ms) => trial({ case: 'from-reality', server: 'RC1', protocol: 'vless-reality-vision', recovery_ms })),
      ...[5500, 5600, 7200].map(hysteria),
    ];
    const t = resetTarget(trials, STALL_MS);
    expect(t.tcp).toMatchObject({ median_le_ms: 1000, kinds: 2, median_met: true, every_kind_met: true, kinds_missed: [] });
    expect(t.udp['hysteria2-salamander-hopping']).toMatchObject({ median_le_ms: 5600, p95_le_ms: 6500, median_met: true, p95_met: false });
  });

  it('names each TCP kind whose median misses, even when the median of all meets it', () => {
    const trials = [
      ...[500, 500, 500, 500].map((recovery_ms) => trial({ recovery_ms })),
      ...[1800, 1900].map((recovery_ms) => trial({ server: 'A5', protocol: 'vmess/ws/none', recovery_ms })),
    ];
    const t = resetTarget(trials, STALL_MS);
    expect(t.tcp.median_met).toBe(true);
    expect(t.tcp.every_kind_met).toBe(false);
    expect(t.tcp.kinds_missed).toEqual(['vmess/ws/none']);
  });

  it('says nothing of a carrier no trial used', () => {
    const t = resetTarget([hysteria(5500)], STALL_MS);
    expect(t.tcp).toMatchObject({ kinds: 0, median_met: null, every_kind_met: null });
    expect(resetTarget([trial({})], STALL_MS).udp).toEqual({});
  });
});

describe('resetByKind', () => {
  it('keys figures by the failing kind with its carrier, counting trials that never recovered', () => {
    const byKind = resetByKind([trial({ recovery_ms: 700 }), trial({ recovery_ms: 900 }), hysteria(5500), hysteria(null)]);
    expect(byKind['vmess/tcp/none']).toMatchObject({ carrier: 'tcp', trials: 2, recovered: 2, recovery_median_ms: 800, dial_failure_median_ms: 50, triggers: { 'dial-failure': 2 } });
    expect(byKind['hysteria2-salamander-hopping']).toMatchObject({ carrier: 'udp', trials: 2, recovered: 1, recovery_median_ms: 5500, dial_failure_median_ms: null, triggers: { stall: 2 } });
  });
});

describe('summarizeCases', () => {
  it('summarizes each case alone, with its own trials', () => {
    const trials = [trial({ recovery_ms: 700 }), hysteria(5500), trial({ recovery_ms: 900 })];
    const out = summarizeCases(trials, (mine) => ({ n: mine.length, servers: mine.map((t) => t.server) }));
    expect(Object.keys(out)).toEqual(['plain', 'from-hysteria2']);
    expect(out.plain).toMatchObject({ n: 2, servers: ['A1', 'A1'] });
    expect(out['from-hysteria2']).toMatchObject({ n: 1, servers: ['RC7'] });
    expect((out.plain!.per_trial as unknown[]).length).toBe(2);
  });
});
