import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { Flights } from './flights';
import type { Readiness } from './ports';
import { ChainReadiness } from './readiness';
import { ServerRecords } from './records';
import { ServerDirectory } from './servers';
import { NetworkSettling } from './settle';
import { FakeProber } from './testing/fake-prober';
import { fakeServer } from './testing/harness';

describe('whether a cycle may test a server now', () => {
  it.each<[string, { ownReady?: boolean; hopInFlight?: boolean; hopResult?: boolean; hopListed?: boolean }, Readiness]>([
    ['a server the prober can reach, whose hop has a result in this run', { hopResult: true }, { ready: true }],
    ['a server the prober cannot reach yet', { ownReady: false, hopResult: true }, { ready: false, reason: 'still connecting' }],
    ['a server whose hop is being retested', { hopInFlight: true, hopResult: true }, { ready: false, reason: 'dials through server hop, which is being retested' }],
    ['a server whose hop has no result in this run', {}, { ready: false, reason: 'dials through server hop, which has no result in this run yet' }],
    ['a server whose hop is not in the list (the prober decides alone)', { hopListed: false }, { ready: true }],
  ])('%s', (_case, world, expected) => {
    const records = new ServerRecords();
    const list = [fakeServer('via-hop', { via: 'hop' }), ...(world.hopListed === false ? [] : [fakeServer('hop')])];
    const servers = new ServerDirectory(() => list, records);
    if (world.hopResult) records.applyUrlOutcome('hop', { ok: true, delayMs: 50 }, 1);
    const clock = new FakeClock();
    const prober = new FakeProber(clock);
    if (world.ownReady === false) prober.setReady('via-hop', { ready: false, reason: 'still connecting' });
    const flights = new Flights({ prober, clock, servers, settling: new NetworkSettling(clock) });
    if (world.hopInFlight) void flights.probe('hop', 'http://test.example/', 5000);
    const readiness = new ChainReadiness(prober, servers, flights, records);
    expect(readiness.of('via-hop')).toEqual(expected);
  });
});
