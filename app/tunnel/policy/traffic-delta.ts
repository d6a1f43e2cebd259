/**
 * Turns the core's cumulative traffic counters into per-interval bytes. Counters are read, not
 * reset, so a lost reply loses nothing (the next reading still holds those bytes); a counter
 * that went down means the core restarted and counts from zero again.
 */
export interface TrafficCounters {
  up: number;
  down: number;
}

export function counterDelta(previous: number | null, current: number): number {
  if (previous === null || current < previous) return current;
  return current - previous;
}

export function trafficDelta(previous: TrafficCounters | null, current: TrafficCounters): TrafficCounters {
  return { up: counterDelta(previous?.up ?? null, current.up), down: counterDelta(previous?.down ?? null, current.down) };
}

/**
 * The bytes the user sent towards the server in one interval. The proxy outbound's own uplink
 * counter is the measure where the core keeps it, but Xray 26 leaves it at zero for its proxy
 * protocols (vmess, trojan, shadowsocks: a server that got 214 bytes read 0 in the lab) while
 * counting downlink and the freedom outbound's uplink. So the bytes that entered the user's
 * inbounds (HTTP, SOCKS5, transparent capture), less those the direct outbound sent on, stand in
 * for it — but only in an interval when nothing went direct (nor in the one before): a direct
 * connection's CONNECT line or proxy headers enter the inbound and never leave by the direct
 * outbound, and would show as bytes sent to the server that never answered. Without the stand-in
 * a blackholed server looks idle on Xray, and Auto's "sending without receiving" never fires.
 */
export function sentTowardsServer(delta: { proxyUp: number; userInboundUp: number; directUp: number; directActive: boolean; groupUp?: number }): number {
  if (delta.directActive) return delta.proxyUp;
  return Math.max(delta.proxyUp, Math.max(0, delta.userInboundUp - delta.directUp - (delta.groupUp ?? 0)));
}

/**
 * How much of one interval's user-inbound bytes (direct already taken out) the server groups
 * carried. Group traffic enters the same inbounds as the main connection's, so without this a
 * group whose server stopped answering would show as the main connection sending without
 * receiving, and the main connection's Auto would switch for the group's failure. A group's own
 * counter (its dialer's uplink) may count the bytes in the interval they entered or in the next
 * (the dial to the group's server takes a moment), so the group bytes of the next interval
 * (`now`) are set against them first, then what was left of that interval's own (`earlier`); what
 * of `now` is not used may pay for the next interval, never longer: the dialer's own overhead (its
 * protocol's header) hides at most one interval's worth of the main connection's bytes.
 */
export function groupShare(userBytes: number, credit: { earlier: number; now: number }): { groups: number; left: number } {
  const need = Math.max(0, userBytes);
  const fromNow = Math.min(need, Math.max(0, credit.now));
  const fromEarlier = Math.min(need - fromNow, Math.max(0, credit.earlier));
  return { groups: fromEarlier + fromNow, left: Math.max(0, credit.now) - fromNow };
}
