import { type CoreLogEvent, interpretCoreLine, outboundFailureKind, parseCoreLogLine, remoteAddressIn } from '../../../app/tunnel/core-log';
import { type AttributedFailure, type DialRetry, OutboundFailureTracker } from '../../../app/tunnel/outbound-failures';
import { ensure, show } from './violation';

const KINDS = new Set(['refused', 'reset', 'timeout', 'dns', 'tls', 'handshake', 'network']);
const LEVELS = new Set(['debug', 'info', 'warning', 'error', null]);

/** A core line splits into a level, a session and text, and means at most one well-formed event. */
export function checkCoreLine(line: string): void {
  const parsed = parseCoreLogLine(line);
  ensure(LEVELS.has(parsed.level), () => `level ${show(parsed.level)}`);
  ensure(parsed.sessionId === null || /^\d+$/.test(parsed.sessionId), () => `sessionId ${show(parsed.sessionId)}`);
  ensure(typeof parsed.text === 'string', 'text is not a string');
  const event = interpretCoreLine(line);
  if (event) checkEvent(event);
  const kind = outboundFailureKind(line);
  ensure(kind === null || KINDS.has(kind), () => `kind ${show(kind)}`);
  const address = remoteAddressIn(line);
  ensure(address === null || (typeof address === 'string' && address.length > 0), () => `address ${show(address)}`);
}

function checkEvent(event: CoreLogEvent): void {
  switch (event.type) {
    case 'started':
      ensure(/^\d+\.\d+\.\d+/.test(event.version), () => `version ${show(event.version)}`);
      return;
    case 'route':
      ensure(event.sessionId.length > 0 && typeof event.destination === 'string', () => `route ${show(event)}`);
      return;
    case 'dialing':
      ensure(event.sessionId.length > 0 && event.address.length > 0, () => `dialing ${show(event)}`);
      return;
    case 'outbound-failure':
      ensure(KINDS.has(event.kind), () => `failure kind ${show(event.kind)}`);
      ensure(typeof event.detail === 'string' && (event.address === null || event.address.length > 0), () => `failure ${show(event)}`);
      return;
    case 'listen-failed':
      ensure(typeof event.detail === 'string', () => `listen-failed ${show(event)}`);
      return;
    default:
      ensure(false, () => `unknown event ${show(event)}`);
  }
}

/** Fed a stream of lines, the tracker reports only well-formed failures and retries (attempt ≥ 2). */
export function checkTrackedSession(lines: string[]): void {
  const failures: AttributedFailure[] = [];
  const retries: DialRetry[] = [];
  const tracker = new OutboundFailureTracker({ failure: (f) => failures.push(f), retry: (r) => retries.push(r), started: () => undefined }, 'proxy');
  for (const line of lines) tracker.line(line);
  for (const f of failures) ensure(KINDS.has(f.kind) && (f.outboundTag === null || typeof f.outboundTag === 'string'), () => `failure ${show(f)}`);
  for (const r of retries) ensure(Number.isInteger(r.attempt) && r.attempt >= 2 && r.sessionId.length > 0 && r.address.length > 0, () => `retry ${show(r)}`);
  ensure(failures.length + retries.length <= lines.length, 'more reports than lines');
}
