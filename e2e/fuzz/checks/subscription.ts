import type { ParseResult } from '../../../app/subscriptions/parse';
import { hostPort, NETWORKS, PROTOCOLS, SECURITIES, type ParsedServer } from '../../../shared/domain/server';
import { ensure, show } from './violation';

/**
 * What every subscription parse must give back, whatever the body: the documented result shape,
 * servers a core can be configured with, rejections a user can act on, and no credential in
 * any excerpt.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** What a parser's catch-all writes when something other than a validation failure was thrown: a bug. */
const CAUGHT_BUG = /internal error|could not be read \(/;

export interface ExpectedServer {
  protocol: string;
  address: string;
  port: number;
}

export function checkParseResult(result: ParseResult, expected?: ExpectedServer): void {
  ensure(result !== null && typeof result === 'object', 'the result is not an object');
  ensure(typeof result.format === 'string' && result.format.length > 0, () => `format is ${show(result.format)}`);
  ensure(Array.isArray(result.servers) && Array.isArray(result.rejected) && Array.isArray(result.notes), 'servers, rejected or notes is not an array');

  const names = new Set(result.servers.map((s) => s.name));
  result.servers.forEach((server, i) => checkServer(server, i, names));

  for (const [i, r] of result.rejected.entries()) {
    ensure(Number.isInteger(r.line) && r.line >= 1, () => `rejected[${i}].line is ${show(r.line)}`);
    ensure(typeof r.reason === 'string' && r.reason.trim().length > 0, () => `rejected[${i}] has no reason`);
    ensure(!CAUGHT_BUG.test(r.reason), () => `rejected[${i}] reports a caught exception, not a reason: ${show(r.reason, 300)}`);
    ensure(!UUID.test(r.reason), () => `rejected[${i}].reason shows a UUID: ${show(r.reason)}`);
    checkExcerpt(r.excerpt, `rejected[${i}]`);
  }
  for (const [i, n] of result.notes.entries()) {
    ensure(Number.isInteger(n.line) && n.line >= 1, () => `notes[${i}].line is ${show(n.line)}`);
    ensure(typeof n.note === 'string' && n.note.trim().length > 0, () => `notes[${i}] is empty`);
    checkExcerpt(n.excerpt, `notes[${i}]`);
  }
  // The result travels over IPC and into the subscription file.
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (error) {
    ensure(false, () => `the result does not serialise: ${String(error)}`);
  }
  ensure(typeof json === 'string', 'the result does not serialise');

  if (expected) {
    const match = result.servers.find((s) => s.protocol === expected.protocol && s.address === expected.address && s.port === expected.port);
    ensure(
      result.servers.length === 1 && match,
      () => `a valid ${expected.protocol} entry for ${expected.address}:${expected.port} gave ${result.servers.length} servers ${show(result.servers.map((s) => `${s.protocol} ${s.address}:${s.port}`))}, rejected ${show(result.rejected.map((r) => r.reason))}`,
    );
  }
}

function checkExcerpt(excerpt: unknown, where: string): void {
  ensure(typeof excerpt === 'string', () => `${where}.excerpt is not a string`);
  ensure([...excerpt].length <= 96, () => `${where}.excerpt is ${[...excerpt].length} characters (at most 96)`);
  ensure(!UUID.test(excerpt), () => `${where}.excerpt shows a UUID: ${show(excerpt)}`);
  ensure(!CONTROL.test(excerpt), () => `${where}.excerpt has control characters: ${show(excerpt)}`);
}

function checkServer(s: ParsedServer, i: number, names: Set<string>): void {
  const where = `servers[${i}] (${show(s.protocol)} ${show(s.address, 60)}:${show(s.port)})`;
  ensure((PROTOCOLS as readonly string[]).includes(s.protocol), () => `${where}: unknown protocol`);
  ensure(typeof s.address === 'string' && s.address.length > 0, () => `${where}: empty address`);
  ensure(!/[\s[\]/@]/.test(s.address) && !CONTROL.test(s.address), () => `${where}: the address has spaces, brackets, / or @`);
  ensure(Number.isInteger(s.port) && s.port >= 1 && s.port <= 65535, () => `${where}: port out of range`);
  ensure(typeof s.name === 'string' && s.name.trim().length > 0, () => `${where}: no name`);
  // Names are cut to 200 characters; only the host:port fallback of a nameless entry may be longer.
  ensure(s.name.length <= 200 || s.name === hostPort(s.address, s.port), () => `${where}: name of ${s.name.length} characters`);
  ensure(!CONTROL.test(s.name), () => `${where}: the name has control characters ${show(s.name)}`);
  ensure(s.transport && (NETWORKS as readonly string[]).includes(s.transport.network), () => `${where}: transport ${show(s.transport)}`);
  ensure(s.security && (SECURITIES as readonly string[]).includes(s.security.type), () => `${where}: security ${show(s.security)}`);
  if (s.security.type === 'reality') ensure(typeof s.security.publicKey === 'string' && s.security.publicKey.length > 0, () => `${where}: REALITY without a public key`);
  if (s.viaName !== undefined) ensure(names.has(s.viaName), () => `${where}: dials through ${show(s.viaName)}, which is not a server of the result`);
  switch (s.protocol) {
    case 'vmess':
      // Cores read alterId as a 16-bit number.
      ensure(Number.isInteger(s.alterId) && s.alterId >= 0 && s.alterId <= 65535, () => `${where}: alterId ${show(s.alterId)}`);
      ensure(typeof s.cipher === 'string' && s.cipher.length > 0, () => `${where}: no cipher`);
      ensure(typeof s.uuid === 'string' && s.uuid.length > 0, () => `${where}: no uuid`);
      break;
    case 'vless':
      ensure(typeof s.uuid === 'string' && s.uuid.length > 0, () => `${where}: no uuid`);
      break;
    case 'tuic':
      ensure(typeof s.uuid === 'string' && s.uuid.length > 0 && s.password.length > 0, () => `${where}: no uuid or password`);
      break;
    case 'trojan':
      ensure(typeof s.password === 'string' && s.password.length > 0, () => `${where}: no password`);
      break;
    case 'shadowsocks':
      ensure(typeof s.method === 'string' && s.method.length > 0 && typeof s.password === 'string', () => `${where}: no method`);
      break;
    case 'wireguard':
      ensure(s.privateKey.length > 0 && s.publicKey.length > 0 && s.localAddresses.length > 0, () => `${where}: keys or local addresses missing`);
      if (s.mtu !== undefined) ensure(Number.isInteger(s.mtu) && s.mtu >= 576 && s.mtu <= 65535, () => `${where}: mtu ${show(s.mtu)}`);
      if (s.reserved) ensure(s.reserved.length === 3 && s.reserved.every((b) => Number.isInteger(b) && b >= 0 && b <= 255), () => `${where}: reserved ${show(s.reserved)}`);
      break;
    case 'hysteria2':
      ensure(typeof s.password === 'string', () => `${where}: no password`);
      if (s.upMbps !== undefined) ensure(Number.isFinite(s.upMbps) && s.upMbps > 0, () => `${where}: upMbps ${show(s.upMbps)}`);
      if (s.downMbps !== undefined) ensure(Number.isFinite(s.downMbps) && s.downMbps > 0, () => `${where}: downMbps ${show(s.downMbps)}`);
      break;
    default:
      break;
  }
}
