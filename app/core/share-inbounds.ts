/**
 * Household sharing's inbounds: the same HTTP and SOCKS5 proxies as on loopback, on one private
 * LAN address, with the core's own accounts doing the authentication (Xray's and v2ray's `http`
 * inbound `accounts`, `socks` inbound `auth: "password"`). They are separate inbounds, so the
 * loopback ones stay open without a password to the machine's own programs.
 *
 * What a refused login leaves in the log, from Xray 26.3.27 at `info` (checked by hand and pinned
 * by e2e/sharing/sharing.int.test.ts):
 * - SOCKS5, wrong username or password:
 *   `[Info] [id] app/proxyman/inbound: connection ends > proxy/socks: failed to read request > proxy/socks: invalid username or password`
 * - SOCKS5, no credentials offered: `… > proxy/socks: no matching auth method`
 * - SOCKS4 (which has no password): `… > proxy/socks: socks 4 is not allowed when auth is required.`
 * - HTTP: nothing, even at `debug`: the inbound answers 407 and returns without an error, so a
 *   refused HTTP login cannot be counted from the log. The count is of SOCKS logins only, and
 *   the sharing page says so.
 * v2ray 4.34 writes the same SOCKS words with its `v2ray.com/core/` prefix.
 */
import { sharingAddressProblem } from '../../shared/sharing';

export interface ShareInbounds {
  /** A private address of this machine (shared/sharing.ts refuses any other). */
  address: string;
  httpPort: number;
  socksPort: number;
  username: string;
  password: string;
}

export const SHARE_TAGS = { httpIn: 'http-lan', socksIn: 'socks-lan' } as const;

/** The two LAN inbounds; throws for an address outside the private ranges, whoever asked for it. */
export function shareInbounds(o: ShareInbounds, sniffing: Record<string, unknown>): Record<string, unknown>[] {
  const problem = sharingAddressProblem(o.address);
  if (problem) throw new Error(`household sharing refused: ${problem}`);
  if (o.username === '' || o.password === '') throw new Error('household sharing needs a username and a password');
  const account = { user: o.username, pass: o.password };
  return [
    { tag: SHARE_TAGS.httpIn, listen: o.address, port: o.httpPort, protocol: 'http', settings: { accounts: [account], allowTransparent: false } },
    {
      tag: SHARE_TAGS.socksIn,
      listen: o.address,
      port: o.socksPort,
      protocol: 'socks',
      settings: { auth: 'password', accounts: [account], udp: true, ip: o.address },
      ...sniffing,
    },
  ];
}

/**
 * A LAN device must not reach this machine's own loopback services (the UI's host, the stats
 * API) through the proxy: with the LAN sent direct, 127.0.0.1 would be dialled here.
 */
export function shareRoutingRules(blockTag: string): Record<string, unknown>[] {
  const inboundTag = [SHARE_TAGS.httpIn, SHARE_TAGS.socksIn];
  return [
    { type: 'field', inboundTag, ip: ['127.0.0.0/8', '::1/128'], outboundTag: blockTag },
    // By name too: the LAN rules or the `direct` outbound would resolve it here.
    { type: 'field', inboundTag, domain: ['domain:localhost'], outboundTag: blockTag },
  ];
}

const REFUSED_LOGIN = /proxy\/socks: (invalid username or password|no matching auth method|socks 4 is not allowed when auth is required)/;

/** Whether a core log line is a refused SOCKS login. */
export function isRefusedLogin(line: string): boolean {
  return REFUSED_LOGIN.test(line);
}
