/**
 * What counts as an answer from a test URL (spec/observatory.md, after Xray's observer: any HTTP
 * response through the server is an answer, redirects not followed).
 *
 * A URL that promises 204 No Content (`generate_204`, `gen_204`, a path ending in `/204`) keeps
 * requiring 204: anything else there did not come from the URL's owner but from a captive portal
 * or a block page in between, so it is a failure, named so. Any other URL — one the user set, such
 * as `https://cp.cloudflare.com` — answers with whatever status it sends.
 */

/** The last path segment is `204` or ends in `_204` / `-204`. */
const PROMISES_204 = /(?:^|[_-])204$/;

export function promisesNoContent(url: string): boolean {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(url);
  if (!match) return false;
  const last = (match[1] ?? '').replace(/\/+$/, '').split('/').pop() ?? '';
  return PROMISES_204.test(last);
}

export type TestUrlJudgement = { ok: true } | { ok: false; message: string };

/**
 * Judges the status a test URL answered with. `expectStatus`, when given, is the only status that
 * counts (a fetch that needs a particular answer, such as an IP-info service's 200).
 */
export function judgeTestUrlAnswer(url: string, status: number, expectStatus?: number): TestUrlJudgement {
  if (expectStatus !== undefined) return status === expectStatus ? { ok: true } : { ok: false, message: `HTTP ${status} instead of ${expectStatus}` };
  if (!promisesNoContent(url) || status === 204) return { ok: true };
  return { ok: false, message: `HTTP ${status} instead of 204: a captive portal or a block page answered in its place` };
}
