/**
 * The IPv6 check's rules (spec/monitor.md: verify_ipv6, ipv6_declared), pure: which servers are
 * checked, what URL the check fetches and with which Host, and what an answer or a failure
 * means. The runtime (../ipv6/checks.ts) resolves names and fetches through the prober.
 */
import type { ProbeError, ProbeFailure } from '../../../shared/domain/measurement';
import type { Ipv6Support } from '../../../shared/domain/status';

/** What the monitor remembers of a verification (the status adds `source: 'verified'`). */
export interface VerifiedIpv6 {
  supported: boolean | null;
  detail: string;
  at: number;
  fromCache: boolean;
}

/** The longest detail kept (core log lines can be long). */
export const IPV6_DETAIL_MAX = 500;

/**
 * Whether a server is checked after a successful URL test: only with verify_ipv6 on, never when
 * its subscription declares its IPv6 support (declared wins), and once a run (a result of this
 * run, whatever it said, is not checked again; one loaded from the cache is).
 */
export function needsIpv6Check(verifyIpv6: boolean, declared: boolean | undefined, known: VerifiedIpv6 | null): boolean {
  if (!verifyIpv6 || declared !== undefined) return false;
  return known === null || known.fromCache;
}

/** The status field: a declaration wins over anything verified. */
export function ipv6Status(declared: boolean | undefined, known: VerifiedIpv6 | null): Ipv6Support | null {
  if (declared !== undefined) {
    return {
      supported: declared,
      source: 'declared',
      detail: declared ? 'the subscription declares IPv6 support (ipv6=1)' : 'the subscription declares no IPv6 support (ipv6=0)',
      at: null,
      fromCache: false,
    };
  }
  return known ? { ...known, source: 'verified' } : null;
}

/** The test URL's host as the check must treat it. */
export type Ipv6Host =
  /** A name: its IPv6 address (AAAA) is looked up. */
  | { kind: 'name'; host: string }
  /** An IPv6 address: it is the address to fetch. */
  | { kind: 'ipv6'; host: string }
  /** An IPv4 address (or a URL that does not parse): there is no IPv6 address to try. */
  | { kind: 'none'; host: string; reason: string };

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export function ipv6HostOf(testUrl: string): Ipv6Host {
  let url: URL;
  try {
    url = new URL(testUrl);
  } catch {
    return { kind: 'none', host: testUrl, reason: `the test URL ${testUrl.slice(0, 100)} does not parse` };
  }
  const host = url.hostname;
  if (host.startsWith('[')) return { kind: 'ipv6', host: host.slice(1, -1) };
  if (IPV4.test(host)) return { kind: 'none', host, reason: `the test URL names an IPv4 address (${host}), which has no IPv6 address to try` };
  return { kind: 'name', host };
}

/**
 * The test URL with its host replaced by an IPv6 address, and the Host header that keeps the
 * request meant for the original host (its port included when the URL names one; over https
 * the same name is the TLS server name).
 */
export function viaIpv6Address(testUrl: string, address: string): { url: string; hostHeader: string } {
  const url = new URL(testUrl);
  const hostHeader = url.host;
  url.hostname = `[${address}]`;
  return { url: url.href, hostHeader };
}

/** What one fetch via the IPv6 address through the server says (before the runtime's context). */
export type Ipv6FetchResult =
  | { ok: true; status: number; elapsedMs: number }
  | { ok: false; error: ProbeError; elapsedMs: number };

/**
 * Any HTTP answer came over IPv6 through the server: supported, whatever the status. A failure
 * the server caused (closed, refused, reset, timed out, unreachable) means it refuses IPv6. A
 * failure that says nothing about the server (the check could not run, TLS with the far end
 * failed) leaves it unknown, as does a server that stopped answering its own URL tests during
 * the check (the fetch failed for that reason, not for IPv6).
 */
export function judgeIpv6Fetch(result: Ipv6FetchResult, address: string, serverFailedMeanwhile: boolean): { supported: boolean | null; detail: string } {
  const ms = Math.round(result.elapsedMs);
  if (result.ok) return { supported: true, detail: `answered HTTP ${result.status} via ${address} in ${ms} ms` };
  const why = result.error.message || result.error.kind;
  if (serverFailedMeanwhile) return { supported: null, detail: `the server stopped answering during the check (${why})` };
  switch (result.error.kind) {
    case 'unsupported':
    case 'unknown':
      return { supported: null, detail: `the check could not run: ${why}` };
    case 'tls':
      return { supported: null, detail: `TLS with ${address} failed, so it is not clear whether IPv6 went through: ${why}` };
    default:
      return { supported: false, detail: `no answer via ${address}: ${REFUSAL_WORDS[result.error.kind] ?? result.error.kind}${coreDetail(result.error.message)}` };
  }
}

/**
 * A refusal in the check's own words. The prober explains a closed tunnel as a URL test would
 * ("credentials rejected, or not this protocol"), but this server has just answered over IPv4:
 * what failed is the IPv6 destination, so only the core's own detail is kept.
 */
const REFUSAL_WORDS: Partial<Record<ProbeFailure, string>> = {
  timeout: 'no answer in time',
  refused: 'the connection was refused',
  reset: 'the connection was reset',
  handshake: 'the server closed the connection',
  network: 'the connection failed',
  dns: 'the address could not be resolved',
  'http-status': 'an unexpected answer',
};

/** The core's own words from a prober message ("<explanation>: <core detail>"), in parentheses. */
function coreDetail(message: string): string {
  const at = message.indexOf(': ');
  const detail = (at >= 0 ? message.slice(at + 2) : message).trim();
  return detail ? ` (${detail})` : '';
}

/** Keeps details short enough for the cache and the UI. */
export function clipDetail(detail: string): string {
  return detail.length > IPV6_DETAIL_MAX ? `${detail.slice(0, IPV6_DETAIL_MAX - 1)}…` : detail;
}
