/**
 * Live traffic that already proves the current server does not freeze (pure), read from the same
 * 250 ms byte counters as suspicion (./suspicion.ts). DPI that freezes foreign connections lets
 * each one carry its first 16–20 KB and no more, and every connection has to send something
 * first: a TLS ClientHello and a request, 600 B and more. So traffic through a freezing server
 * receives at most about 30 times what it sends. Traffic that receives far more than that, and a
 * lot of it, has connections carrying well past the threshold: the server is not freezing them,
 * and a 64 KB watch test would only repeat what the user's own bytes just showed.
 *
 * - **proof**: the last 4 s received at least 512 KB (32 times the 16 KB threshold), and at least
 *   128 times what the last 6 s sent (the 2 s before the window hold the requests of connections
 *   still answering in it). A stream, a download or a video passes; browsing that gets its first
 *   kilobytes per connection, a chat, a call (whose upstream is as large as its downstream) or
 *   QUIC (whose acknowledgements go up all the time) do not, and are watched as before.
 *
 * A proof stands in only for the watch's periodic test (./watch.ts): the test as the connection
 * starts and the test on suspicion still run, and the monitor's own transfer test of the current
 * server each interval still runs whatever the traffic (so a download that started before DPI
 * began freezing new connections cannot hide it for longer than one interval).
 */
import type { SuspicionTracker } from './suspicion';

export const FLOW_PROOF_RULES = {
  windowMs: 4000,
  minDownBytes: 512 * 1024,
  /** Down over up, with up counted over the window and the `upLeadMs` before it. */
  minDownPerUp: 128,
  upLeadMs: 2000,
} as const;

/** How far back the proof reads: no further than the tracker keeps (TRACKER_KEPT_MS, a test says so). */
export const FLOW_PROOF_SPAN_MS: number = FLOW_PROOF_RULES.windowMs + FLOW_PROOF_RULES.upLeadMs;

/** Whether the traffic of the last seconds proves the server carries connections past the freeze threshold. */
export function flowProves(tracker: SuspicionTracker, now: number): boolean {
  const r = FLOW_PROOF_RULES;
  let down = 0;
  let up = 0;
  for (const i of tracker.intervals) {
    if (i.at > now) continue;
    if (i.at > now - r.windowMs) down += i.downBytes;
    if (i.at > now - FLOW_PROOF_SPAN_MS) up += i.upBytes;
  }
  return down >= r.minDownBytes && down >= up * r.minDownPerUp;
}
