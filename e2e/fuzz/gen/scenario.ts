import fc from 'fast-check';
import { mutated, perturbedJson } from './mutate';

/**
 * Scenario files for `npm run sim`: valid ones built from a few subscriptions and servers, the
 * same with fields of the wrong type or missing, broken JSON text, and unrelated JSON.
 */
const duration = fc.oneof(
  fc.tuple(fc.nat(600), fc.constantFrom('ms', 's', 'm', 'h')).map(([n, u]) => `${n}${u}`),
  fc.tuple(fc.nat(59), fc.nat(59)).map(([m, s]) => `${m}m${s}s`),
  fc.nat(3_600_000),
  fc.constantFrom('4.5s', '1h5m10s', '0s', '', 's', '5', '5 s', '-1s', '1e3s', `${'9'.repeat(400)}h`, '1.s', 'PT5M'),
);

const validScenario = fc
  .record({
    subs: fc.uniqueArray(fc.constantFrom('A', 'B', 'C', 'sub-1'), { minLength: 1, maxLength: 3 }),
    servers: fc.uniqueArray(fc.constantFrom('fi', 'de', 'nl', 'b1', 'b2', 'c1', 'x'), { minLength: 1, maxLength: 7 }),
    platform: fc.constantFrom('desktop', 'mobile', undefined),
    world: fc.array(
      fc.record(
        {
          at: duration,
          network: fc.constantFrom('online', 'offline', 'none'),
          traffic: fc.constantFrom('active', 'idle', 'sparse'),
          delay: fc.oneof(fc.nat(2000), fc.constantFrom('down', 'refused')),
          action: fc.constantFrom('exclude', 'include', 'autoOn', 'autoOff', 'connect', 'checkNow', 'subscriptionUpdate'),
        },
        { requiredKeys: ['at'] },
      ),
      { maxLength: 8 },
    ),
    until: duration,
    reconnect: fc.option(duration),
    useAuto: fc.boolean(),
  })
  .map(({ subs, servers, platform, world, until, reconnect, useAuto }) => {
    const perSub = subs.map((id, i) => ({ id, servers: servers.filter((_, j) => j % subs.length === i) }));
    const first = servers[0] as string;
    const sub = subs[0] as string;
    return {
      ...(platform ? { platform } : {}),
      subscriptions: perSub,
      ...(useAuto ? { auto: sub } : { current: first }),
      excluded: servers.slice(1, 2),
      history: Object.fromEntries(servers.map((s, i) => [s, [i * 10, null, 30]])),
      world: world.map((w) => ({
        at: w.at,
        ...(w.network ? { network: w.network } : {}),
        ...(w.traffic ? { traffic: w.traffic } : {}),
        ...(w.delay !== undefined ? { servers: { [first]: w.delay } } : {}),
        ...(w.action ? { action: actionFor(w.action, first, sub) } : {}),
      })),
      until,
      ...(reconnect !== null ? { reconnect } : {}),
    };
  });

function actionFor(kind: string, server: string, sub: string): Record<string, unknown> {
  switch (kind) {
    case 'exclude':
      return { exclude: [server] };
    case 'include':
      return { include: [server] };
    case 'autoOn':
      return { autoOn: sub };
    case 'autoOff':
      return { autoOff: true };
    case 'connect':
      return { connect: server };
    case 'checkNow':
      return { checkNow: true };
    default:
      return { subscriptionUpdate: { [sub]: [server, 'new-1'] } };
  }
}

export const scenarioText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: validScenario.map((s) => JSON.stringify(s, null, 2)) },
  { weight: 4, arbitrary: perturbedJson(validScenario, 3).map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: mutated(validScenario.map((s) => JSON.stringify(s)), 3) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);
