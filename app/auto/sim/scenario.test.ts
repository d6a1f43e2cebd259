import { describe, expect, it } from 'vitest';
import { durationMs, parseScenario, validateScenario } from './scenario';

const valid = {
  subscriptions: [
    { id: 'A', servers: ['fi', 'de', 'nl'] },
    { id: 'B', servers: ['b1', 'b2'] },
  ],
  auto: 'A',
  current: 'fi',
  excluded: ['de'],
  history: { fi: [60, 61, 62], de: [20, 25, 300], nl: [15, 18, null] },
  world: [
    { at: '0s', network: 'online', traffic: 'active', servers: { fi: 60, de: 25, nl: 18, b1: 50, b2: 70 } },
    { at: '2m', servers: { fi: 'down' } },
    { at: '14m', servers: { fi: 60 } },
    { at: '20m', action: { exclude: ['nl'] } },
  ],
  until: '30m',
};

function withChange(change: (s: Record<string, unknown>) => void): unknown {
  const copy = structuredClone(valid) as unknown as Record<string, unknown>;
  change(copy);
  return copy;
}

describe('scenario parsing', () => {
  it("accepts spec/scenario.md's example and fills the defaults", () => {
    const parsed = validateScenario(valid);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.scenario).toMatchObject({ platform: 'desktop', until: 1_800_000, reconnect: 1000 });
    expect(parsed.scenario.world.map((w) => w.at)).toEqual([0, 120_000, 840_000, 1_200_000]);
  });

  it.each([
    ['250ms', 250],
    ['5s', 5000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['2m30s', 150_000],
    ['4.5s', 4500],
    ['1h5m10s', 3_910_000],
  ])('duration %s = %i ms', (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it('a settings change takes the settings Auto reads, checked as Settings checks them', () => {
    const ok = validateScenario(withChange((s) => (s.world = [{ at: '1m', action: { settings: { stallThresholdMs: 2000, urlTestTimeoutMs: 3000 } } }])));
    expect(ok.ok && ok.scenario.world[0]?.action).toEqual({ settings: { stallThresholdMs: 2000, urlTestTimeoutMs: 3000 } });
    const bad = validateScenario(withChange((s) => (s.world = [{ at: '1m', action: { settings: { stallThresholdMs: 10 } } }])));
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/^world\[0\]\.action/) });
  });

  it('keeps world changes in time order, the file order on ties', () => {
    const parsed = validateScenario(
      withChange((s) => {
        s.world = [
          { at: '5m', servers: { fi: 'down' } },
          { at: '0s', servers: { fi: 60 } },
          { at: '5m', servers: { fi: 70 } },
        ];
      }),
    );
    expect(parsed.ok && parsed.scenario.world.map((w) => w.servers?.fi)).toEqual([60, 'down', 70]);
  });

  it.each([
    ['not JSON at all', null, /^scenario: not valid JSON/],
    ['no subscriptions', (s: Record<string, unknown>) => delete s.subscriptions, /^subscriptions: expected a list of \{"id", "servers"\}$/],
    ['an empty subscription list', (s: Record<string, unknown>) => (s.subscriptions = []), /^subscriptions: expected at least one subscription$/],
    ['a server state that is neither a delay nor "down"', (s: Record<string, unknown>) => ((s.world as { servers?: unknown }[])[1]!.servers = { fi: 'slow' }), /^world\[1\]\.servers\.fi: expected a delay in ms or "down"$/],
    ['a negative delay', (s: Record<string, unknown>) => ((s.world as { servers?: unknown }[])[1]!.servers = { fi: -5 }), /^world\[1\]\.servers\.fi: /],
    ['a bad until', (s: Record<string, unknown>) => (s.until = 'soon'), /^until: expected a duration such as/],
    ['a missing until', (s: Record<string, unknown>) => delete s.until, /^until: expected a duration/],
    ['an until beyond 7 days', (s: Record<string, unknown>) => (s.until = '169h'), /^until: at most 7 days/],
    ['a bad time', (s: Record<string, unknown>) => ((s.world as { at: unknown }[])[2]!.at = '14 minutes'), /^world\[2\]\.at: expected a duration/],
    ['an unknown network state', (s: Record<string, unknown>) => ((s.world as { network?: unknown }[])[0]!.network = 'wifi'), /^world\[0\]\.network: expected "online", "offline" or "none"$/],
    ['an unknown traffic state', (s: Record<string, unknown>) => ((s.world as { traffic?: unknown }[])[0]!.traffic = 'busy'), /^world\[0\]\.traffic: /],
    ['an unknown action', (s: Record<string, unknown>) => ((s.world as { action?: unknown }[])[3]!.action = { reboot: true }), /^world\[3\]\.action: expected one of/],
    ['a history entry that is not a delay', (s: Record<string, unknown>) => ((s.history as Record<string, unknown[]>).fi![1] = 'x'), /^history\.fi\[1\]: /],
    ['an unknown platform', (s: Record<string, unknown>) => (s.platform = 'tv'), /^platform: expected "desktop" or "mobile"$/],
    ['auto naming no subscription', (s: Record<string, unknown>) => (s.auto = 'Z'), /^auto: there is no subscription "Z"$/],
    ['current naming no server', (s: Record<string, unknown>) => (s.current = 'xx'), /^current: there is no server "xx" in the subscriptions$/],
    ['neither current nor auto', (s: Record<string, unknown>) => (delete s.current, delete s.auto), /^current: required when "auto" is not set$/],
    ['an unknown excluded server', (s: Record<string, unknown>) => (s.excluded = ['de', 'zz']), /^excluded\[1\]: there is no server "zz"$/],
    ['history of an unknown server', (s: Record<string, unknown>) => ((s.history as Record<string, unknown>).zz = [1]), /^history\.zz: there is no server "zz"$/],
    ['a world change for an unknown server', (s: Record<string, unknown>) => ((s.world as { servers?: unknown }[])[1]!.servers = { zz: 5 }), /^world\[1\]\.servers\.zz: there is no server "zz"$/],
    ['a server in two subscriptions', (s: Record<string, unknown>) => ((s.subscriptions as { servers: string[] }[])[1]!.servers = ['fi']), /^subscriptions\[1\]\.servers\[0\]: "fi" is already in subscription A$/],
    ['a subscription id twice', (s: Record<string, unknown>) => ((s.subscriptions as { id: string }[])[1]!.id = 'A'), /^subscriptions\[1\]\.id: "A" appears twice$/],
    ['excluding an unknown server', (s: Record<string, unknown>) => ((s.world as { action?: unknown }[])[3]!.action = { exclude: ['zz'] }), /^world\[3\]\.action: there is no server "zz"$/],
    ['autoOn for an unknown subscription', (s: Record<string, unknown>) => ((s.world as { action?: unknown }[])[3]!.action = { autoOn: 'Z' }), /^world\[3\]\.action\.autoOn: there is no subscription "Z"$/],
    [
      'an update of an unknown subscription',
      (s: Record<string, unknown>) => ((s.world as { action?: unknown }[])[3]!.action = { subscriptionUpdate: { Z: ['z1'] } }),
      /^world\[3\]\.action\.subscriptionUpdate\.Z: there is no subscription "Z"$/,
    ],
  ])('refuses %s with one line naming the field', (_name, change, message) => {
    const result = change === null ? parseScenario('{"subscriptions": [') : validateScenario(withChange(change as (s: Record<string, unknown>) => void));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatch(message);
    expect(result.error).not.toContain('\n');
  });

  it('servers that appear only in a later subscription update may be set in the world', () => {
    const parsed = validateScenario(
      withChange((s) => {
        (s.world as unknown[]).push({ at: '25m', action: { subscriptionUpdate: { A: ['fi', 'new1'] } } }, { at: '26m', servers: { new1: 40 } });
      }),
    );
    expect(parsed.ok).toBe(true);
  });
});
