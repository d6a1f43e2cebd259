import fc from 'fast-check';
import { mutated } from './mutate';

/**
 * Lines a v2ray-family core writes: the shapes core-log.ts interprets (routes, dials, outbound
 * failures with their error chains, listen failures, start banners) in v2ray 4 / v5 / Xray
 * package spellings, and everything else a core or a crashing core prints.
 */
const prefix = fc.constantFrom('v2ray.com/core/', 'github.com/v2fly/v2ray-core/v5/', 'github.com/xtls/xray-core/', '');
const level = fc.constantFrom('[Debug] ', '[Info] ', '[Warning] ', '[Error] ', '', '[Bogus] ');
const session = fc.oneof(fc.nat().map((n) => `[${n}] `), fc.constant(''), fc.constantFrom('[] ', '[x] ', `[${'9'.repeat(40)}] `));
const timestamp = fc.oneof(
  fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => d.toISOString().replace('T', ' ').replace(/-/g, '/').slice(0, 19)),
  fc.date({ noInvalidDate: true }).map((d) => `${d.toISOString().replace('T', ' ').replace(/-/g, '/').slice(0, 23)}`),
  fc.constant(''),
);
const address = fc.oneof(
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 70000 })).map(([h, p]) => `${h}:${p}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 65535 })).map(([h, p]) => `[${h}]:${p}`),
  fc.tuple(fc.domain(), fc.integer({ min: 1, max: 65535 })).map(([h, p]) => `${h}:${p}`),
);
const cause = fc.oneof(
  address.map((a) => `dial tcp ${a}: connect: connection refused`),
  fc.tuple(address, address).map(([a, b]) => `read tcp ${a}->${b}: read: connection reset by peer`),
  fc.tuple(address, address).map(([a, b]) => `write tcp ${a}->${b}: write: broken pipe`),
  fc.tuple(fc.domain(), address).map(([h, a]) => `dial tcp: lookup ${h} on ${a}: no such host`),
  fc.tuple(fc.domain(), address).map(([h, a]) => `dial tcp: lookup ${h} on ${a}: i/o timeout`),
  address.map((a) => `dial tcp ${a}: i/o timeout`),
  fc.constantFrom('EOF', 'context canceled', 'tls: first record does not look like a TLS handshake', 'x509: certificate signed by unknown authority', 'connect: network is unreachable', 'failed to read response header', 'unexpected EOF', 'something else entirely'),
  address.map((a) => `connection ends > via tcp:${a}`),
);
const chain = fc.array(fc.tuple(prefix, fc.constantFrom('proxy/vmess/outbound: failed to find an available destination', 'common/retry: all retry attempts failed', 'proxy/vless/encoding: failed to read response version', 'transport/internet: failed to dial')), { maxLength: 4 });
const body = fc.oneof(
  fc.tuple(prefix, fc.string({ maxLength: 20 }), address).map(([p, tag, a]) => `${p}app/dispatcher: taking detour [${tag}] for [tcp:${a}]`),
  fc.tuple(prefix, address).map(([p, a]) => `${p}app/dispatcher: default route for [tcp:${a}]`),
  fc.tuple(prefix, fc.constantFrom('tcp', 'websocket', 'grpc'), address).map(([p, t, a]) => `${p}transport/internet/${t}: dialing TCP to tcp:${a}`),
  fc.tuple(prefix, chain, cause).map(([p, links, c]) => `${p}app/proxyman/outbound: failed to process outbound traffic > ${links.map(([q, l]) => `${q}${l}`).join(' > ')}${links.length ? ' > ' : ''}${c}`),
  fc.tuple(prefix, fc.integer({ min: 1, max: 65535 })).map(([p, port]) => `Failed to start ${p}app/proxyman/inbound: failed to listen TCP on ${port} > listen tcp 127.0.0.1:${port}: bind: address already in use`),
  fc.constantFrom('v2ray.com/core: V2Ray 4.34.0 started', 'Xray 26.1.13 started', 'V2Ray 5.16.1 started', 'V2Ray 4.34.0 (user) 20230518-074445 (go1.19.8 linux/amd64)', 'panic: runtime error: invalid memory address', 'goroutine 1 [running]:'),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
);

const structuredLine = fc.tuple(timestamp, level, session, body).map(([t, l, s, b]) => `${t}${t ? ' ' : ''}${l}${s}${b}`);

export const coreLogLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: structuredLine },
  { weight: 4, arbitrary: mutated(structuredLine, 3) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('read tcp ', 'dial tcp ', 'lookup ', 'failed to listen on ', 'outbound: failed to process outbound traffic > read tcp '), fc.nat(20_000), fc.constantFrom('a', ' a', '->', ':', 'a:')).map(([p, n, unit]) => p + unit.repeat(n)) },
);

/** What a core writes over a while: a few sessions' lines interleaved. */
export const coreLogSession: fc.Arbitrary<string[]> = fc.array(coreLogLine, { minLength: 1, maxLength: 40 });
