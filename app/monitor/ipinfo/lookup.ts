/**
 * Asks IP-info services through one server, in the order the plan gives, until one answers.
 * Each request goes through the server being looked up (its exit address is what we want to
 * know) with its own deadline; a rate limit, an error body or garbage moves on to the next.
 */
import type { IpInfo } from '../../../shared/domain/measurement';
import type { FetchThroughResult } from '../ports';
import type { IpInfoPlan, IpInfoSource, IpInfoStep } from '../policy/ipinfo-order';
import { parseIpInfoAnswer } from './parsers';

/** A GET of `url` through the server being looked up. */
export type FetchThrough = (url: string) => Promise<FetchThroughResult>;

export interface IpInfoAttempt {
  source: IpInfoSource;
  /** 'ok' or why this service was passed over. */
  result: string;
}

export interface IpInfoLookup {
  info: IpInfo | null;
  /** Time to the answering service's response headers: compared with the URL test's delay. */
  answerMs: number | null;
  attempts: IpInfoAttempt[];
}

const MAX_BODY_BYTES = 64 * 1024;

export async function lookupIpInfo(plan: IpInfoPlan, fetchThrough: FetchThrough, signal?: AbortSignal): Promise<IpInfoLookup> {
  const attempts: IpInfoAttempt[] = [];
  for (const step of plan.sequence) {
    if (signal?.aborted) return { info: null, answerMs: null, attempts };
    const answer = await ask(step, fetchThrough);
    attempts.push({ source: step.source, result: answer.ok ? 'ok' : answer.reason });
    if (answer.ok) return { info: answer.info, answerMs: answer.ms, attempts };
  }
  if (signal?.aborted || plan.fallback.length === 0) return { info: null, answerMs: null, attempts };
  // Everything failed (rate limits, timeouts on a busy network): ask the trace and the two
  // address+country services together and combine what they say.
  const answers = await Promise.all(plan.fallback.map((step) => ask(step, fetchThrough)));
  plan.fallback.forEach((step, i) => {
    const answer = answers[i];
    if (answer) attempts.push({ source: step.source, result: answer.ok ? 'ok' : answer.reason });
  });
  const good = answers.flatMap((a) => (a.ok ? [a] : []));
  const first = good[0];
  if (!first) return { info: null, answerMs: null, attempts };
  const sameIp = good.filter((a) => a.info.ip === first.info.ip);
  const withCountry = sameIp.find((a) => a.info.countryCode);
  const contributors = withCountry && withCountry !== first ? [first, withCountry] : [first];
  const info: IpInfo = { ip: first.info.ip, source: contributors.map((a) => a.info.source).join('+') };
  const code = withCountry?.info.countryCode;
  if (code) info.countryCode = code;
  return { info, answerMs: Math.min(...contributors.map((a) => a.ms)), attempts };
}

type Answer = { ok: true; info: IpInfo; ms: number } | { ok: false; reason: string };

async function ask(step: IpInfoStep, fetchThrough: FetchThrough): Promise<Answer> {
  let result: FetchThroughResult;
  try {
    result = await fetchThrough(step.url);
  } catch (error) {
    // The port never rejects; if an implementation does, treat it as this service failing.
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!result.ok) return { ok: false, reason: `${result.error.kind}: ${result.error.message}` };
  const body = result.body.subarray(0, MAX_BODY_BYTES).toString('utf8');
  const parsed = parseIpInfoAnswer(step.source, result.status, body);
  return parsed.ok ? { ok: true, info: parsed.info, ms: result.headersMs } : { ok: false, reason: parsed.reason };
}
