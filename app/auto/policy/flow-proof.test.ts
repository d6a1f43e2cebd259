import { describe, expect, it } from 'vitest';
import type { TrafficSample } from '../../../shared/domain/connection';
import { FLOW_PROOF_SPAN_MS, flowProves } from './flow-proof';
import { NO_SUSPICION, observeForSuspicion, TRACKER_KEPT_MS } from './suspicion';

const KB = 1024;
const T0 = 1_000_000;

/** 6 s of 250 ms samples, each made by `bytes(i)`: the tracker after them. */
function sixSeconds(bytes: (i: number) => [up: number, down: number]) {
  const list: TrafficSample[] = Array.from({ length: 24 }, (_, i) => ({ at: T0 + (i + 1) * 250, intervalMs: 250, upBytes: bytes(i)[0], downBytes: bytes(i)[1] }));
  return list.reduce(observeForSuspicion, NO_SUSPICION);
}

describe('flow proof: the user’s traffic shows connections carrying well past the freeze threshold', () => {
  it.each([
    // case, 6 s of traffic, proves
    ['a stream (120 KB a sample, 200 B up)', () => [200, 120 * KB], true],
    ['a download at 1 MB/s with HTTP/2 window updates', () => [40, 256 * KB], true],
    ['a burst of 600 KB in the last second, after 5 s of quiet', (i: number) => (i >= 20 ? [100, 150 * KB] : [0, 0]), true],
    ['a 40 KB download each second that completes', (i: number) => (i % 4 === 0 ? [300, 40 * KB] : [0, 0]), false],
    ['a freezing server: 30 new TLS connections a second, 16 KB each', () => [8 * 600, 8 * 16 * KB], false],
    ['a freezing server under plain-HTTP requests of 200 B each', () => [8 * 200, 8 * 16 * KB], false],
    ['requests of the 2 s before the window answered in it (up counted from 6 s back)', (i: number) => (i < 8 ? [6 * KB, 0] : [0, 48 * KB]), false],
    ['a video call (as much up as down)', () => [40 * KB, 60 * KB], false],
    ['QUIC through the server (acknowledgements up all the time)', () => [3 * KB, 100 * KB], false],
    ['a chat: a few kilobytes now and then', (i: number) => (i % 8 === 0 ? [500, 4 * KB] : [0, 0]), false],
    ['nothing at all', () => [0, 0], false],
  ] as const)('%s → %s', (_case, bytes, proves) => {
    expect(flowProves(sixSeconds(bytes as (i: number) => [number, number]), T0 + 6000)).toBe(proves);
  });

  it('reads no further back than the tracker keeps', () => {
    expect(FLOW_PROOF_SPAN_MS).toBeLessThanOrEqual(TRACKER_KEPT_MS);
  });

  it('a stream that ended 4 s ago proves nothing any more', () => {
    const tracker = sixSeconds((i) => (i < 8 ? [200, 200 * KB] : [0, 0]));
    expect(flowProves(tracker, T0 + 2000)).toBe(true);
    expect(flowProves(tracker, T0 + 6000)).toBe(false);
  });
});
