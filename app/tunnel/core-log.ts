/**
 * Reads the lines a v2ray-family core writes (v2ray 4 names its packages `v2ray.com/core/...`,
 * v2ray 5 `github.com/v2fly/v2ray-core/v5/...`, Xray drops the prefix). Only the few lines the
 * tunnel and the prober act on are interpreted; everything else is just logged.
 *
 * What Debian's v2ray 4.34 writes (captured from real runs, see core-log.test.ts):
 * - a routed connection: `[Info] [sid] .../app/dispatcher: taking detour [tag] for [tcp:host:port]`
 *   (or `default route for [tcp:host:port]` when no rule matched);
 * - each dial attempt: `[Info] [sid] .../transport/internet/tcp: dialing TCP to tcp:host:port`
 *   (`.../transport/internet/websocket: creating connection to tcp:host:port` for WebSocket);
 *   a refused (or unresolvable) server is dialled 5 times over ~2 s, so a second `dialing` line
 *   for the same session ~200 ms after the first is the earliest sign that the dial failed;
 * - the outbound giving up: `[Warning] [sid] .../proxyman/outbound: failed to process outbound
 *   traffic > ... [dial tcp 127.0.0.1:1: connect: connection refused] > ... all retry attempts
 *   failed` after those ~2 s; a server that accepts and then resets or closes is logged at once,
 *   usually at **Info** level (`... read tcp a->b: read: connection reset by peer`, `... > EOF`);
 *   only when the reset beats the request's write is it a Warning (trojan's `failed to flush
 *   payload > write tcp a->b: ... connection reset by peer`), so the cores we run log at `info`.
 * - `context canceled` closes are ours (the client went away), not the server's fault.
 *
 * sing-box (the carrier, app/core/sing-box/config.ts) writes its own format, coloured even into a
 * pipe: `INFO[0000] sing-box started (0.00s)`; a failed dial is one ERROR line naming the
 * outbound by tag, `ERROR[0000] [1556398227 1ms] connection: open connection to example.com:80
 * using outbound/trojan[proxy]: dial tcp 127.0.0.1:1: connect: connection refused`, with the
 * same Go error words (`connection refused`, `read: connection reset by peer`, `context deadline
 * exceeded`) the v2ray family uses, so `outboundFailureKind` reads both.
 */
import type { ProbeFailure } from '../../shared/domain/measurement';

export type CoreLogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface CoreLogLine {
  level: CoreLogLevel | null;
  /** The core's per-connection session id, when the line belongs to one. */
  sessionId: string | null;
  /** The line without its timestamp, level and session. */
  text: string;
}

/** The kinds of failure a core reports for an outbound (a subset of the probe failures). */
export type OutboundFailureKind = Extract<ProbeFailure, 'refused' | 'reset' | 'timeout' | 'dns' | 'tls' | 'handshake' | 'network'>;

export type CoreLogEvent =
  | { type: 'started'; version: string }
  | { type: 'route'; sessionId: string; outboundTag: string | null; destination: string }
  | { type: 'dialing'; sessionId: string; address: string }
  /** `outboundTag`: the outbound the line itself names (sing-box); v2ray-family lines name none. */
  | { type: 'outbound-failure'; sessionId: string | null; kind: OutboundFailureKind; address: string | null; detail: string; outboundTag?: string }
  | { type: 'listen-failed'; address: string | null; detail: string };

const LINE = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? (?:\[(Debug|Info|Warning|Error)\] )?(?:\[(\d+)\] )?(.*)$/;
const LEVELS: Record<string, CoreLogLevel> = { Debug: 'debug', Info: 'info', Warning: 'warning', Error: 'error' };

/** sing-box: `LEVEL[0000] [session 12ms] text`, or with `timestamp: true` `+0000 2026-12-01 22:36:46 LEVEL [session 12ms] text`. */
const SING_BOX_LINE = /^(?:[+-]\d{4} \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} )?(TRACE|DEBUG|INFO|WARN|ERROR|FATAL|PANIC)(?:\[\d+\])? (?:\[(\d+) [^\]]*\] )?(.*)$/;
const SING_BOX_LEVELS: Record<string, CoreLogLevel> = { TRACE: 'debug', DEBUG: 'debug', INFO: 'info', WARN: 'warning', ERROR: 'error', FATAL: 'error', PANIC: 'error' };
// Colour codes (ESC [ … m): built from the escape's code so the pattern holds no control character.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The line without terminal colour codes (sing-box colours its levels even into a pipe). */
export function withoutColours(line: string): string {
  return line.includes(String.fromCharCode(27)) ? line.replace(ANSI, '') : line;
}

export function parseCoreLogLine(raw: string): CoreLogLine {
  const line = withoutColours(raw).trimEnd();
  const match = LINE.exec(line);
  if (match) return { level: match[1] ? (LEVELS[match[1]] ?? null) : null, sessionId: match[2] ?? null, text: match[3] ?? '' };
  const singBox = SING_BOX_LINE.exec(line);
  if (singBox) return { level: SING_BOX_LEVELS[singBox[1] as string] ?? null, sessionId: singBox[2] ?? null, text: singBox[3] ?? '' };
  return { level: null, sessionId: null, text: line };
}

const STARTED = /\b(?:V2Ray|Xray) (\d+\.\d+\.\d+\S*) started\b/;
const DETOUR = /app\/dispatcher: taking detour \[([^\]]*)\] for \[([^\]]*)\]/;
const DEFAULT_ROUTE = /app\/dispatcher: default route for \[?([^\]\s]+)\]?/;
// TCP (and TLS over it) says "dialing TCP to"; WebSocket says "creating connection to", once per attempt too.
const DIALING = /transport\/internet\/\w+: (?:dialing (?:TCP )?to|creating connection to) (?:tcp:|udp:)?(\S+)/;
const OUTBOUND_FAILURE = /proxyman\/outbound: failed to process outbound traffic > (.*)$/;
const LISTEN_FAILED = /failed to listen (?:TCP |UDP )?on (\S+) > (.*)$/;
const SING_BOX_STARTED = /^sing-box started \(/;
const SING_BOX_FAILURE = /^connection: open (?:packet )?connection (?:to \S+ )?using outbound\/[\w-]+\[([^\]]*)\]: (.*)$/;
const SING_BOX_LISTEN_FAILED = /start inbound\/[\w-]+\[[^\]]*\]: (listen (?:tcp|udp)\d? (\S+?): .*)$/;

/** The event a line stands for, or null when the line is only worth logging. */
export function interpretCoreLine(raw: string): CoreLogEvent | null {
  const line = parseCoreLogLine(raw);
  const { text, sessionId } = line;
  let m = STARTED.exec(text);
  if (m) return { type: 'started', version: m[1] as string };
  if (SING_BOX_STARTED.test(text)) return { type: 'started', version: '' };
  m = SING_BOX_FAILURE.exec(text);
  if (m) {
    const detail = m[2] as string;
    const kind = outboundFailureKind(detail);
    if (!kind) return null;
    return { type: 'outbound-failure', sessionId, kind, address: remoteAddressIn(detail), detail: shortDetail(detail), outboundTag: m[1] as string };
  }
  m = SING_BOX_LISTEN_FAILED.exec(text);
  if (m) return { type: 'listen-failed', address: m[2] as string, detail: m[1] as string };
  if (sessionId) {
    m = DETOUR.exec(text);
    if (m) return { type: 'route', sessionId, outboundTag: m[1] as string, destination: m[2] as string };
    m = DEFAULT_ROUTE.exec(text);
    if (m) return { type: 'route', sessionId, outboundTag: null, destination: m[1] as string };
    m = DIALING.exec(text);
    if (m) return { type: 'dialing', sessionId, address: m[1] as string };
  }
  m = OUTBOUND_FAILURE.exec(text);
  if (m) {
    const detail = m[1] as string;
    const kind = outboundFailureKind(detail);
    if (!kind) return null;
    return { type: 'outbound-failure', sessionId, kind, address: remoteAddressIn(detail), detail: shortDetail(detail) };
  }
  m = LISTEN_FAILED.exec(text);
  if (m) return { type: 'listen-failed', address: lastListenAddress(text), detail: m[2] as string };
  return null;
}

/**
 * What a core's error chain says went wrong with the server, most specific first; null for a
 * close the client caused (`context canceled`), a WebSocket stream the server ended normally, or
 * a chain that names no cause.
 */
export function outboundFailureKind(detail: string): OutboundFailureKind | null {
  const d = detail.toLowerCase();
  if (d.includes('connection refused')) return 'refused';
  if (d.includes('connection reset') || d.includes('broken pipe')) return 'reset';
  // "lookup x on 10.0.0.1:53: i/o timeout" is a DNS failure, not a server timeout: test DNS first.
  if (/\blookup \S+|no such host|server misbehaving|name resolution/.test(d)) return 'dns';
  if (/i\/o timeout|timed out|deadline exceeded|timeout/.test(d)) return 'timeout';
  if (/\btls\b|x509|certificate|handshake failure|first record does not look like a tls/.test(d)) return 'tls';
  if (/network is unreachable|no route to host|host is unreachable|host is down/.test(d)) return 'network';
  if (d.includes('context canceled')) return null;
  // "websocket: close 1000 (normal)" is the server closing the stream on purpose. v2ray 4.34 logs
  // it for many healthy connections through vless/ws and trojan/ws servers (after the answer:
  // "failed to transfer response payload", or "connection ends"); taken as a failure it started
  // an Auto check every 15 s on a working server. Only while the answer's header is still
  // awaited does it mean the server turned the request away (a vless server rejecting the id).
  if (/\bclose 1000\b/.test(d) && !/failed to (?:read|decode) response/.test(d)) return null;
  if (/\beof\b|failed to read (response|header)|failed to decode response|invalid (user|response)|not a valid user|unexpected/.test(d)) return 'handshake';
  return 'network';
}

/**
 * The server address a failure names: `dial tcp 1.2.3.4:443`, `read tcp a->b` (b is the
 * server), `lookup host.example`. IPv6 stays in brackets, as the core writes it.
 */
export function remoteAddressIn(detail: string): string | null {
  // The local address never contains ">": `\S+->` here backtracked quadratically on a long "->->…" run.
  let m = /\b(?:read|write) (?:tcp|udp)\d? [^\s>]+->(\S+?):? /.exec(detail);
  if (m) return m[1] as string;
  m = /\bdial (?:tcp|udp)\d? (\S+?):? /.exec(detail);
  if (m) return m[1] as string;
  m = /\blookup (\S+?)(?: on |: )/.exec(detail);
  if (m) return m[1] as string;
  m = /\bvia (?:tcp:|udp:)(\S+)/.exec(detail);
  if (m) return m[1] as string;
  return null;
}

/** The innermost causes of an error chain (the package path prefixes only make it long). */
function shortDetail(detail: string): string {
  const parts = detail.split(' > ').map((part) => part.replace(/^[\w/.-]+: /, ''));
  return parts.slice(-3).join(' > ');
}

function lastListenAddress(text: string): string | null {
  const all = [...text.matchAll(/listen (?:tcp|udp)\d? (\S+?):? /g)];
  const last = all[all.length - 1];
  return last ? (last[1] as string) : null;
}

/** `host:port` of a server as the core writes it, for matching failures to servers. */
export function coreAddress(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
