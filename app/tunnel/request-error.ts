/**
 * Names what went wrong with a request made through a core's local HTTP inbound. The inbound
 * itself is on loopback and answers CONNECT at once, so most server failures do not show up as
 * a socket error of their own: the core accepts the tunnel, fails to reach the server, and closes
 * the tunnel. Such a "closed before any answer" is marked `closedEarly` so the caller can ask the
 * core's log why (refused, reset, DNS, ...).
 */
import type { ProbeFailure } from '../../shared/domain/measurement';

export interface RequestFailure {
  kind: ProbeFailure;
  /** A sentence for the UI and the log, free of credentials. */
  message: string;
  /** The tunnel closed before any answer: the core's log knows why. */
  closedEarly: boolean;
  /** The caller cancelled; not the server's fault. */
  cancelled: boolean;
}

/** Our own hard deadline passed. */
export class DeadlineError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'DeadlineError';
  }
}

/** The caller aborted the request. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'UND_ERR_PRX_TLS',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const NETWORK_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);

interface ErrorLike {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
}

function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let current: unknown = error;
  while (current && typeof current === 'object' && out.length < 5) {
    out.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return out;
}

/**
 * Classifies an error thrown by an undici request made through a local proxy inbound (see the
 * module comment). `proxyLabel` names the inbound in messages ("the prober's inbound").
 */
export function classifyRequestError(error: unknown, proxyLabel = 'the local proxy'): RequestFailure {
  const links = chain(error);
  const codes = links.map((l) => l.code ?? '');
  const text = links.map((l) => `${l.name ?? ''}: ${l.message ?? ''}`).join(' | ');
  const failure = (kind: ProbeFailure, message: string, closedEarly = false, cancelled = false): RequestFailure => ({
    kind,
    message,
    closedEarly,
    cancelled,
  });

  if (links.some((l) => l instanceof CancelledError)) return failure('unknown', 'cancelled', false, true);
  const deadline = links.find((l): l is DeadlineError => l instanceof DeadlineError);
  if (deadline) return failure('timeout', deadline.message);
  if (codes.some((c) => TIMEOUT_CODES.has(c)) || links.some((l) => l.name === 'TimeoutError')) {
    return failure('timeout', `timed out (${firstMessage(links)})`);
  }
  if (codes.some((c) => TLS_CODES.has(c) || c.startsWith('ERR_SSL_') || c.startsWith('ERR_TLS_')) || /certificate|ssl routines|tls alert/i.test(text)) {
    return failure('tls', `TLS failed: ${firstMessage(links)}`);
  }
  // The inbound itself refused: our core is not listening (stopped or restarting).
  if (codes.includes('ECONNREFUSED')) return failure('unknown', `${proxyLabel} is not accepting connections`);
  if (codes.some((c) => DNS_CODES.has(c))) return failure('dns', `name lookup failed: ${firstMessage(links)}`);
  if (codes.some((c) => NETWORK_CODES.has(c))) return failure('network', `network unreachable: ${firstMessage(links)}`);
  const proxyStatus = /Proxy response \((\d+)\)/.exec(text);
  if (proxyStatus) return failure('network', `${proxyLabel} answered the tunnel request with HTTP ${proxyStatus[1]}`);
  // "other side closed" (UND_ERR_SOCKET), ECONNRESET, "socket disconnected before secure TLS
  // connection was established", EPIPE: the tunnel went away before the server said anything.
  if (codes.some((c) => c === 'UND_ERR_SOCKET' || c === 'ECONNRESET' || c === 'EPIPE' || c === 'UND_ERR_CLOSED') || /other side closed|socket hang up|disconnected before/i.test(text)) {
    return failure('network', 'the connection closed before any answer', true);
  }
  if (links.some((l) => l.name === 'AbortError')) return failure('unknown', 'aborted', false, true);
  return failure('unknown', firstMessage(links));
}

function firstMessage(links: ErrorLike[]): string {
  const deepest = [...links].reverse().find((l) => l.message);
  return deepest?.message ?? 'unknown error';
}
