/**
 * A core that could not start because a port the app picked for it was taken: the stats API
 * inbound, or a carrier's loopback hop. Those ports are picked free a moment before the core
 * binds them, and on a busy machine (a program opening many connections, another app's cores)
 * one can be taken in between; the core then exits with "address already in use". Starting again
 * with freshly picked ports is what a user would do by hand, so the tunnel does it for them, a few
 * times. A port the user configured (the HTTP and SOCKS5 proxies) is never one of these: it is
 * checked before the start, and taken means another program holds it, which the user must hear.
 * Pure; the rules are in picked-port.test.ts.
 */

/** Starts made in all when a picked port was taken (the first and two more). */
export const PICKED_PORT_STARTS = 3;

const CANNOT_LISTEN = /cannot listen on \[?([^\s\]]*?)\]?:(\d+) \(.*address already in use/i;

/** Whether a start failure says one of `picked` was taken ("cannot listen on 127.0.0.1:P (… address already in use)"). */
export function pickedPortTaken(message: string, picked: readonly (number | undefined)[]): boolean {
  const m = CANNOT_LISTEN.exec(message);
  return m !== null && picked.includes(Number(m[2]));
}
