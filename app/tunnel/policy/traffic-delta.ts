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
export function sentTowardsServer(delta: { proxyUp: number; userInboundUp: number; directUp: number; directActive: boolean }): number {
  if (delta.directActive) return delta.proxyUp;
  return Math.max(delta.proxyUp, Math.max(0, delta.userInboundUp - delta.directUp));
}
