/**
 * The monitor's transfer test: a download through a server after its delay test answered. A ping
 * fits under the 16–20 KB after which DPI freezes many foreign connections, so a server can answer
 * every ping and still hang every page; this test is what tells the two apart.
 */

/**
 * - `ok`: the body came at or above the floor;
 * - `freezes`: bytes came, then nothing for the stall window with the connection still open;
 * - `throttled`: it kept coming, but below the floor;
 * - `failed`: the download could not be made at all (an error, an HTTP status): no verdict on the
 *   server's traffic, which its next delay test judges.
 */
export const TRANSFER_VERDICTS = ['ok', 'freezes', 'throttled', 'failed'] as const;
export type TransferVerdict = (typeof TRANSFER_VERDICTS)[number];

/** Nothing for this long with the connection open: the download froze. */
export const TRANSFER_STALL_MS = 2000;

export interface TransferTest {
  verdict: TransferVerdict;
  /** When the test ended (epoch ms). */
  at: number;
  /** Body bytes received: for `freezes`, those that came before the silence. */
  bytes: number;
  /** Body bytes asked for. */
  expectedBytes: number;
  /** Body speed (after the response headers), null when no body came. */
  bytesPerSecond: number | null;
  /** The server's TLS ClientHello was sent in fragments (an anti-DPI option) during the test. */
  fragment: boolean;
  /** Why it failed, or what was seen, in words (already free of credentials). */
  detail: string;
  /** Loaded from the previous run's cache and not tested again in this one. */
  fromCache: boolean;
}
