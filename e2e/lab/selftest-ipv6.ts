/**
 * The lab's IPv6 side (the monitor's IPv6 check needs it): the target answers on ::1 at the same
 * port as on 127.0.0.1, directly and by host name; through an IPv6-capable server a request to
 * [::1] is answered, through any other server it fails (v2ray cannot dial ::1 from an IPv4
 * sendThrough), and the user's network going offline cuts the user's ::1 connections too.
 */
import type { Check, SelftestContext } from './selftest-context';

export async function checkIpv6(ctx: SelftestContext): Promise<Check> {
  const { info } = ctx.lab;
  if (!info.targetIpv6) return { ok: false, error: 'the target does not answer on ::1 (IPv6 disabled on this machine?)' };
  const capable = info.servers.find((s) => s.ipv6);
  const refusing = info.servers.find((s) => !s.ipv6);
  if (!capable || !refusing) return { ok: false, error: 'the lab needs an IPv6-capable server and one without IPv6 (at least 2 servers)' };
  const v6Port = new URL(info.targetIpv6).port;
  const [direct, byName, viaCapable, viaCapableV4, viaRefusing, viaRefusingV4] = await Promise.all([
    ctx.direct(info.targetIpv6, 3000),
    ctx.direct(info.targetByName, 3000),
    ctx.via(capable.id, info.targetIpv6, 5000),
    ctx.via(capable.id, info.target, 5000),
    ctx.via(refusing.id, info.targetIpv6, 5000),
    ctx.via(refusing.id, info.target, 5000),
  ]);
  await ctx.lab.setNetwork('offline');
  const offline = await ctx.direct(info.targetIpv6, 1500);
  await ctx.lab.setNetwork('online');
  const describe = (r: { ok: boolean; status: number | null; error: string | null }) => (r.ok ? `HTTP ${r.status}` : (r.error ?? `HTTP ${r.status}`));
  return {
    ok:
      v6Port === new URL(info.target).port &&
      direct.status === 204 &&
      byName.status === 204 &&
      viaCapable.status === 204 &&
      viaCapableV4.status === 204 &&
      !viaRefusing.ok &&
      viaRefusingV4.status === 204 &&
      !offline.ok,
    same_port: v6Port === new URL(info.target).port,
    direct_ipv6: describe(direct),
    direct_by_name: describe(byName),
    [`via_${capable.id}_ipv6`]: describe(viaCapable),
    [`via_${refusing.id}_ipv6`]: describe(viaRefusing),
    [`via_${refusing.id}_ipv4`]: describe(viaRefusingV4),
    offline_direct_ipv6: describe(offline),
  };
}
