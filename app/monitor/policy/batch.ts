/**
 * Rules against false timeouts in batch tests (beyond the seeds: the most common complaint about
 * every peer client is that "test all" marks working servers dead).
 *
 * - Servers behind one front address (many entries of one provider on one CDN edge or one host)
 *   are probed at most FRONT_ADDRESS_LIMIT at a time, so a batch does not look like a flood to
 *   that front and get throttled.
 * - A failure that happened while the batch was busy may be the batch's own fault (the core, the
 *   CPU or the uplink saturated): it is confirmed once more alone before it counts.
 */

export const FRONT_ADDRESS_LIMIT = 2;

/** The key servers share when they share a front address: the dialled host, case-folded. */
export function frontKey(address: string): string {
  return address.trim().toLowerCase().replace(/^\[|\]$/g, '');
}

/** Whether one more probe to this front may start now. */
export function mayProbeFront(inFlightToFront: number, limit = FRONT_ADDRESS_LIMIT): boolean {
  return inFlightToFront < limit;
}

/**
 * A batch is busy when at least half its workers are probing (and at least two probes run, since
 * a probe running alone cannot be slowed by its batch).
 */
export function isBusyBatch(probesInFlight: number, workers: number): boolean {
  return probesInFlight >= Math.max(2, workers / 2);
}
