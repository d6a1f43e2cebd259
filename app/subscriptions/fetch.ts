import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, type Dispatcher, errors as undiciErrors, interceptors, ProxyAgent, request } from 'undici';
import type { SubscriptionErrorKind, SubscriptionUsage } from '../../shared/domain/subscription';
import { decodeBase64Text, decodePercent } from './parse/text';

/** The app's version as the User-Agent reports it (kept beside package.json's by hand). */
export const CLIENT_VERSION = '0.1.0';

/**
 * Honest about what we are and what we read. Providers choose the format they serve by the
 * User-Agent; saying which families we parse lets them serve any of those (base64 links is the
 * usual answer to an unknown client, and the best-supported one here).
 */
export function defaultUserAgent(version = CLIENT_VERSION): string {
  return `SteadfastVPN/${version} (v2ray/xray core; reads base64 and plain share links, Xray JSON, sing-box JSON, Clash YAML)`;
}

export type FetchErrorKind = Exclude<SubscriptionErrorKind, 'empty-response' | 'no-usable-server'>;

export interface FetchSuccess {
  ok: true;
  /** Set when the direct fetch failed and the list came through the tunnel (tunnel-fallback.ts). */
  viaTunnel?: boolean;
  body: Buffer;
  status: number;
  /** From `subscription-userinfo`, when the provider sends it. */
  usage: SubscriptionUsage | null;
  /** From `profile-title` (plain or `base64:`), else the `content-disposition` file name. */
  title: string | null;
  /** From `profile-update-interval` (hours), when sent. */
  updateIntervalHours: number | null;
  /** From `announce` (plain or `base64:`): the provider's message to its users. */
  announce: string | null;
}

export interface FetchFailure {
  ok: false;
  kind: FetchErrorKind;
  /** A sentence for the user (no URL in it: subscription URLs carry the user's token). */
  message: string;
}

export type FetchOutcome = FetchSuccess | FetchFailure;

export interface FetchOptions {
  signal?: AbortSignal;
  /** This subscription's own User-Agent (some panels choose the format by it); the app's otherwise. */
  userAgent?: string;
  /** An HTTP proxy to fetch through (the tunnel's local inbound), instead of directly. */
  proxy?: string;
}

/** What the store needs from the network; the HTTP implementation is below. */
export interface SubscriptionFetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchOutcome>;
}

export interface HttpFetcherOptions {
  /** Overall deadline for the whole fetch, redirects and body included. Default 20 s. */
  timeoutMs?: number;
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** Time to the response headers once connected. Default 15 s. */
  headersTimeoutMs?: number;
  /** Longest silence while the body arrives. Default 15 s. */
  bodyTimeoutMs?: number;
  /** Bodies larger than this (after decompression) are not read. Default 10 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  userAgent?: string;
  /** Sent with every request besides the fixed ones (the device identity, device-identity.ts). */
  extraHeaders?: Record<string, string>;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_SUBSCRIPTION_BYTES = 10 * 1024 * 1024;

/**
 * Fetches subscription URLs with undici: TLS always verified (there is no option to turn that
 * off), redirects followed up to a limit, gzip / deflate / brotli accepted, every stage under a
 * timeout and the whole under one deadline (an AbortSignal, since a stalled connection must not
 * hold an update forever), and a size cap enforced while reading. Never throws: every failure
 * comes back classified with a sentence for the user.
 */
export class HttpSubscriptionFetcher implements SubscriptionFetcher {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly connectTimeoutMs: number;
  private readonly headersTimeoutMs: number;
  private readonly userAgent: string;
  private readonly extraHeaders: Record<string, string>;
  private readonly agent: Agent;
  private readonly dispatcher: Dispatcher;
  private readonly bodyTimeoutMs: number;

  constructor(options: HttpFetcherOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_SUBSCRIPTION_BYTES;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.headersTimeoutMs = options.headersTimeoutMs ?? 15_000;
    this.userAgent = options.userAgent ?? defaultUserAgent();
    this.extraHeaders = options.extraHeaders ?? {};
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 15_000;
    this.agent = new Agent({
      connect: { timeout: this.connectTimeoutMs, rejectUnauthorized: true },
      headersTimeout: this.headersTimeoutMs,
      bodyTimeout: this.bodyTimeoutMs,
    });
    this.dispatcher = this.agent.compose(interceptors.redirect({ maxRedirections: this.maxRedirects }));
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchOutcome> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return failure('invalid-url', 'the subscription address is not a valid URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return failure('invalid-url', `the subscription address must start with http:// or https:// (not ${parsed.protocol}//)`);
    }
    const host = parsed.host;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    // Through the tunnel: a proxy of its own, under the same deadline (a proxy that never answers
    // CONNECT is cut off by it), closed after this one fetch.
    const proxied = options.proxy
      ? new ProxyAgent({ uri: options.proxy, connect: { timeout: this.connectTimeoutMs, rejectUnauthorized: true }, headersTimeout: this.headersTimeoutMs, bodyTimeout: this.bodyTimeoutMs })
      : null;
    try {
      const response = await request(parsed, {
        method: 'GET',
        dispatcher: proxied ? proxied.compose(interceptors.redirect({ maxRedirections: this.maxRedirects })) : this.dispatcher,
        signal,
        headers: {
          ...this.extraHeaders,
          'user-agent': options.userAgent?.trim() || this.userAgent,
          accept: 'text/plain, application/json, application/yaml, text/yaml, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      const { statusCode, headers, body } = response;
      if (statusCode >= 300 && statusCode < 400) {
        await body.dump().catch(() => undefined);
        return failure('redirects', `${host} redirected more than ${this.maxRedirects} times (or without a Location)`);
      }
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump().catch(() => undefined);
        const text = STATUS_CODES[statusCode];
        return failure('http-status', `${host} answered HTTP ${statusCode}${text ? ` (${text})` : ''}`);
      }
      const declared = Number(header(headers['content-length']));
      if (Number.isFinite(declared) && declared > this.maxBytes) {
        body.destroy();
        return this.tooLarge(host);
      }
      const encoding = (header(headers['content-encoding']) ?? '').trim().toLowerCase();
      const decoded = decompressed(body, encoding);
      if (!decoded) {
        body.destroy();
        return failure('network', `${host} sent the list in an encoding this app does not read (${encoding.slice(0, 30)})`);
      }
      // The cap counts decompressed bytes, so a small compressed bomb is stopped as well.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of decoded) {
        size += (chunk as Buffer).length;
        if (size > this.maxBytes) {
          decoded.destroy();
          body.destroy();
          return this.tooLarge(host);
        }
        chunks.push(chunk as Buffer);
      }
      const interval = Number(header(headers['profile-update-interval']));
      return {
        ok: true,
        body: Buffer.concat(chunks, size),
        status: statusCode,
        usage: parseSubscriptionUserinfo(header(headers['subscription-userinfo'])),
        title: parseProfileTitle(header(headers['profile-title'])) ?? fileNameOf(header(headers['content-disposition'])),
        announce: parseAnnounce(header(headers.announce)),
        updateIntervalHours: Number.isFinite(interval) && interval > 0 ? interval : null,
      };
    } catch (error) {
      if (deadline.aborted) return failure('timeout', `${host} did not finish answering within ${seconds(this.timeoutMs)}`);
      if (options.signal?.aborted) return failure('timeout', `fetching from ${host} was cancelled`);
      return classifyFetchError(error, host, {
        connectTimeoutMs: this.connectTimeoutMs,
        headersTimeoutMs: this.headersTimeoutMs,
        maxBytes: this.maxBytes,
      });
    } finally {
      void proxied?.close().catch(() => undefined);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private tooLarge(host: string): FetchFailure {
    return failure('too-large', `the response from ${host} is larger than ${mebibytes(this.maxBytes)}; it was not read further`);
  }
}

/** The body decompressed as its Content-Encoding says; null for an encoding we do not read. */
function decompressed(body: Readable, encoding: string): Readable | null {
  const make = encoding === '' || encoding === 'identity' ? null : DECODERS[encoding];
  if (make === null) return body;
  if (!make) return null;
  const decoder = make();
  pipeline(body, decoder, () => undefined);
  return decoder;
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream & Readable> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

function failure(kind: FetchErrorKind, message: string): FetchFailure {
  return { ok: false, kind, message };
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${mib.toFixed(1)} MiB`;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const TLS_CODE = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** Turns whatever undici or the socket threw into a kind and a sentence. Exported for tests. */
export function classifyFetchError(
  error: unknown,
  host: string,
  limits: { connectTimeoutMs: number; headersTimeoutMs: number; maxBytes: number },
): FetchFailure {
  const code = errorCode(error);
  if (error instanceof undiciErrors.ConnectTimeoutError || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return failure('timeout', `could not connect to ${host} within ${seconds(limits.connectTimeoutMs)}`);
  }
  if (error instanceof undiciErrors.HeadersTimeoutError || code === 'UND_ERR_HEADERS_TIMEOUT') {
    return failure('timeout', `${host} accepted the connection but did not answer within ${seconds(limits.headersTimeoutMs)}`);
  }
  if (error instanceof undiciErrors.BodyTimeoutError || code === 'UND_ERR_BODY_TIMEOUT') {
    return failure('timeout', `${host} stopped sending in the middle of the response`);
  }
  if (error instanceof undiciErrors.ResponseExceededMaxSizeError || code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return failure('too-large', `the response from ${host} is larger than ${mebibytes(limits.maxBytes)}; it was not read further`);
  }
  if (code && DNS_CODES.has(code)) return failure('dns', `the name ${hostName(host)} could not be resolved (DNS: ${code})`);
  if (code === 'ECONNREFUSED') return failure('refused', `${host} refused the connection`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return failure('reset', `the connection to ${host} was reset`);
  if (code && /^(ERR_SSL_|ERR_TLS_(?!CERT))/.test(code)) return failure('tls', `the TLS handshake with ${host} failed (${code})`);
  if (code && TLS_CODE.test(code)) return failure('tls', `the TLS certificate of ${host} could not be verified (${code})`);
  const message = error instanceof Error ? error.message : String(error);
  if (/certificate|ssl|tls/i.test(message)) return failure('tls', `the TLS connection to ${host} failed (${message.slice(0, 120)})`);
  if (code?.startsWith('Z_')) {
    return failure('network', `the response from ${host} is corrupt (its compressed data does not decode)`);
  }
  if (code === 'ETIMEDOUT') return failure('timeout', `the connection to ${host} timed out`);
  if (code === 'ENETUNREACH' || code === 'EHOSTUNREACH') return failure('network', `${host} is unreachable from this network (${code})`);
  return failure('network', `could not fetch from ${host} (${code ?? message.slice(0, 120)})`);
}

/** The first errno-style code on an error, its cause, or the first of an AggregateError. */
function errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || error === null || typeof error !== 'object') return undefined;
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown[] };
  if (typeof e.code === 'string' && e.code !== 'UND_ERR' && !e.code.startsWith('ABORT')) {
    // undici wraps socket failures; prefer the socket's own code when there is one.
    const inner = errorCode(e.cause, depth + 1);
    return inner ?? e.code;
  }
  return errorCode(e.cause, depth + 1) ?? (Array.isArray(e.errors) ? errorCode(e.errors[0], depth + 1) : undefined);
}

function hostName(host: string): string {
  return host.replace(/:\d+$/, '');
}

/**
 * `upload=455727941; download=6174315083; total=1073741824000; expire=1700000000`, tolerant of
 * spaces, case, commas and missing fields. `expire=0` (no expiry) is left out. Null when nothing
 * usable is there.
 */
export function parseSubscriptionUserinfo(value: string | undefined): SubscriptionUsage | null {
  if (!value) return null;
  const usage: SubscriptionUsage = {};
  for (const part of value.split(/[;,]/)) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    const number = Number(part.slice(eq + 1).trim());
    if (!Number.isFinite(number) || number < 0) continue;
    const n = Math.round(number);
    if (key === 'upload') usage.upload = n;
    else if (key === 'download') usage.download = n;
    else if (key === 'total') usage.total = n;
    else if (key === 'expire' && n > 0) usage.expire = n;
  }
  return Object.keys(usage).length > 0 ? usage : null;
}

/** `profile-title`: plain text (UTF-8 sent raw arrives as latin-1 and is re-read), or `base64:…`. */
export function parseProfileTitle(value: string | undefined): string | null {
  return providerText(value, { maxLength: 200, keepLineBreaks: false });
}

/** `announce`: the provider's message, written like a title but as long as a paragraph. */
export function parseAnnounce(value: string | undefined): string | null {
  return providerText(value, { maxLength: 2000, keepLineBreaks: true });
}

/** A provider's words in a header: `base64:…` or plain (raw UTF-8 re-read from latin-1), control characters made spaces. */
function providerText(value: string | undefined, o: { maxLength: number; keepLineBreaks: boolean }): string | null {
  if (!value) return null;
  let text = value.trim();
  if (/^base64:/i.test(text)) text = decodeBase64Text(text.slice(7)) ?? '';
  else text = decodePercent(relatin1(text));
  // eslint-disable-next-line no-control-regex
  text = text.replace(o.keepLineBreaks ? /[\u0000-\u0009\u000b-\u001f\u007f]+/g : /[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text ? text.slice(0, o.maxLength) : null;
}

/** `attachment; filename*=UTF-8''%F0%9F%87%A9…` or `filename="name.txt"` → the name without extension. */
function fileNameOf(value: string | undefined): string | null {
  if (!value) return null;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)?''([^;]+)/.exec(value);
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(value);
  const raw = star ? decodePercent(star[1] as string) : plain ? relatin1(plain[1] as string) : '';
  const name = raw.trim().replace(/\.(txt|ya?ml|json|conf)$/i, '');
  return name || null;
}

/** Header values are latin-1 strings; a title sent as raw UTF-8 bytes is re-read as UTF-8. */
function relatin1(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0080-\u00ff]/.test(text) || /[^\u0000-\u00ff]/.test(text)) return text;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'latin1'));
  } catch {
    return text;
  }
}
