/**
 * Test-only: a believable picture of the app (subscriptions, statuses, an Auto timeline that
 * replays the seed's figure) for component tests and the preview screenshots. Never imported by
 * the product.
 */
import { IDLE_SPEED_TEST } from '../../../shared/domain/speed-test';
import type { TimelineEntry } from '../../../shared/domain/auto';
import type { CoreAbilities, CoreEntry, CoreList, CoreName } from '../../../shared/domain/cores';
import type { IpInfo, Measurement } from '../../../shared/domain/measurement';
import { sampleServer } from '../../../shared/domain/sample-servers';
import { sampleSubscription } from '../../../shared/testing/sample-subscriptions';
import type { Server } from '../../../shared/domain/server';
import type { ServerStatus } from '../../../shared/domain/status';
import type { Subscription } from '../../../shared/domain/subscription';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { DEFAULT_SETTINGS } from '../../../shared/settings';

export function server(id: string, subscriptionId: string, name: string, protocol: Server['protocol'] = 'vless'): Server {
  return sampleServer(protocol, 'tcp', { id, subscriptionId, name, address: `${id}.example.net`, security: { type: 'tls' } });
}

export function subscription(id: string, name: string, servers: Server[], extra: Partial<Subscription> = {}): Subscription {
  return sampleSubscription(id, servers, { name, url: `https://provider.example/sub/${id}`, ...extra });
}

export function ipInfo(ip: string, countryCode: string, extra: Partial<IpInfo> = {}, fromCache = false, at = Date.now() - 90_000): ServerStatus['ipInfo'] {
  return { ip, countryCode, source: 'ipapi.co', fromCache, at, ...extra };
}

export function status(serverId: string, patch: Partial<ServerStatus> = {}): ServerStatus {
  return {
    serverId,
    delayMs: null,
    testedAt: null,
    fromCache: false,
    error: null,
    testing: false,
    downForNow: false,
    notReady: null,
    ipInfo: null,
    throughputBps: null,
    statistics: { count: 0, failures: 0, averageMs: null, deviationMs: null, minMs: null, maxMs: null },
    recent: [],
    reachability: null,
    ipv6: null,
    transfer: null,
    speedTest: null,
    ...patch,
  };
}

/** The seed's figure, scenario 1 then 2, as the host would record it, ending at `now`. */
export function seedTimeline(now: number): TimelineEntry[] {
  const min = 60_000;
  const t0 = now - 30 * min;
  const at = (m: number, s = 0) => t0 + m * min + s * 1000;
  return [
    { type: 'switch', at: at(0), from: null, to: 'fi', reason: 'auto-on', carrying: 'fi' },
    { type: 'check', at: at(4), trigger: 'stall', probe: ['fi', 'nl', 'de'], carrying: 'fi' },
    { type: 'probe-result', at: at(4, 5), id: 'fi', delay: null, recorded: true, carrying: 'fi' },
    { type: 'probe-result', at: at(4, 1), id: 'nl', delay: 18, recorded: true, carrying: 'fi' },
    { type: 'probe-result', at: at(4, 1), id: 'de', delay: 41, recorded: true, carrying: 'fi' },
    { type: 'switch', at: at(4, 6), from: 'fi', to: 'nl', reason: 'current-silent', carrying: 'nl' },
    { type: 'check', at: at(9, 6), trigger: 'scheduled', probe: ['nl', 'fi'], carrying: 'nl' },
    { type: 'probe-result', at: at(9, 7), id: 'fi', delay: null, recorded: true, carrying: 'nl' },
    { type: 'stay', at: at(9, 8), id: 'nl', reason: 'current-answered', carrying: 'nl' },
    { type: 'check', at: at(14, 6), trigger: 'scheduled', probe: ['nl', 'fi'], carrying: 'nl' },
    { type: 'probe-result', at: at(14, 7), id: 'fi', delay: 61, recorded: true, carrying: 'nl' },
    // The engine adds how far the server it left is on its way back (app/auto/policy/check-end.ts).
    { type: 'stay', at: at(14, 8), id: 'nl', reason: 'return-pending', carrying: 'nl', ...{ candidate: 'fi', answers: 1, needed: 2 } },
    { type: 'check', at: at(19, 6), trigger: 'scheduled', probe: ['nl', 'fi'], carrying: 'nl' },
    { type: 'probe-result', at: at(19, 7), id: 'fi', delay: 60, recorded: true, carrying: 'nl' },
    { type: 'switch', at: at(19, 8), from: 'nl', to: 'fi', reason: 'return', carrying: 'fi' },
    { type: 'check', at: at(23), trigger: 'stall', probe: ['fi', 'nl', 'de', 'b1', 'b2'], carrying: 'fi' },
    { type: 'probe-result', at: at(23, 5), id: 'fi', delay: null, recorded: false, carrying: 'fi' },
    { type: 'probe-result', at: at(23, 5), id: 'b1', delay: null, recorded: false, carrying: 'fi' },
    { type: 'network-lost', at: at(23, 6), attempt: 1, next_in_ms: 15_000, carrying: 'fi' },
    { type: 'network-lost', at: at(23, 26), attempt: 2, next_in_ms: 30_000, carrying: 'fi' },
    { type: 'network-lost', at: at(24, 1), attempt: 3, next_in_ms: 60_000, carrying: 'fi' },
    { type: 'network-lost', at: at(25, 6), attempt: 4, next_in_ms: 120_000, carrying: 'fi' },
    { type: 'check', at: at(27, 6), trigger: 'stall', probe: ['fi'], carrying: 'fi' },
    { type: 'probe-result', at: at(27, 7), id: 'fi', delay: 62, recorded: true, carrying: 'fi' },
    { type: 'stay', at: at(27, 8), id: 'fi', reason: 'current-answered', carrying: 'fi' },
  ];
}

export function measurementsFor(seed: number, now: number, count = 24): Measurement[] {
  const out: Measurement[] = [];
  for (let i = 0; i < count; i++) {
    const wobble = Math.round(Math.abs(Math.sin(seed * 7 + i)) * 40);
    const failed = (i + seed) % 9 === 0;
    out.push({ at: now - (count - i) * 5 * 60_000, method: 'url', delayMs: failed ? null : 40 + seed * 10 + wobble, ...(failed ? { error: 'timeout' as const } : {}) });
  }
  return out;
}

/** A demo-like world: two subscriptions with varied server states, Auto on for the first. */
export function sampleSnapshot(now: number): AppSnapshot {
  const a = [
    server('fi', 'A', 'Finland · Helsinki 1'),
    server('nl', 'A', 'Netherlands · Amsterdam', 'vmess'),
    server('de', 'A', 'Germany · Frankfurt', 'trojan'),
    server('ir', 'A', 'Iran relay (Tehran)', 'shadowsocks'),
    server('us', 'A', 'United States · Ashburn'),
    server('jp', 'A', 'Japan · Tokyo', 'vmess'),
  ];
  const b = [server('b1', 'B', 'B1 · Stockholm', 'trojan'), server('b2', 'B', 'B2 · Warsaw'), server('b3', 'B', 'B3 · Hysteria', 'vless')];
  const stats = (avg: number) => ({ count: 5, failures: 0, averageMs: avg, deviationMs: 3, minMs: avg - 4, maxMs: avg + 5 });
  const statuses: Record<string, ServerStatus> = {
    fi: status('fi', { delayMs: 63, testedAt: now - 40_000, ipInfo: ipInfo('185.220.101.4', 'FI', { city: 'Helsinki', region: 'Uusimaa', asn: 'AS24940', org: 'Hetzner Online GmbH' }), statistics: stats(62), recent: measurementsFor(1, now, 5), reachability: { verdict: 'ok', reason: 'answers from here', vantagePoints: [], derivedAt: now }, ipv6: { supported: true, source: 'verified', detail: 'answered HTTP 204 via 2001:4860:4802:32::78 in 71 ms', at: now - 39_000, fromCache: false } }),
    nl: status('nl', { delayMs: 182, testedAt: now - 50_000, fromCache: true, ipInfo: ipInfo('45.83.91.20', 'NL', { city: 'Amsterdam', asn: 'AS49981', org: 'WorldStream' }, true), statistics: stats(180), ipv6: { supported: null, source: 'verified', detail: 'www.gstatic.com has no IPv6 address (AAAA)', at: now - 86_400_000, fromCache: true } }),
    de: status('de', { delayMs: null, testedAt: now - 20_000, error: { kind: 'timeout', message: 'no answer within 5 s' }, ipInfo: ipInfo('88.198.2.7', 'DE', { city: 'Frankfurt', asn: 'AS24940', org: 'Hetzner' }), reachability: { verdict: 'blocked-here', reason: 'reached through B1 · Stockholm (AS8473 Bahnhof) and B2 · Warsaw (AS16276 OVH) but it failed from here 3 times in a row over 2 min: blocked on your network', vantagePoints: [{ serverId: 'b1', reached: true }, { serverId: 'b2', reached: true }], derivedAt: now }, ipv6: { supported: false, source: 'declared', detail: 'the subscription declares no IPv6 support (ipv6=0)', at: null, fromCache: false } }),
    ir: status('ir', { delayMs: 512, testedAt: now - 10_000, ipInfo: ipInfo('5.160.12.9', 'IR', { city: 'Tehran', asn: 'AS58224', org: 'TCI' }) }),
    us: status('us', { testing: true, downForNow: true, ipInfo: ipInfo('23.129.64.12', 'US', { city: 'Ashburn', asn: 'AS396982', org: 'Google Cloud' }, true) }),
    jp: status('jp', { delayMs: 248, testedAt: now - 70_000, ipInfo: ipInfo('139.162.77.1', 'JP', { city: 'Tokyo', asn: 'AS63949', org: 'Akamai (Linode)' }) }),
    b1: status('b1', { delayMs: 95, testedAt: now - 30_000, ipInfo: ipInfo('194.68.32.3', 'SE', { city: 'Stockholm', org: 'Bahnhof' }) }),
    b2: status('b2', { delayMs: 131, testedAt: now - 30_000, ipInfo: ipInfo('91.214.60.3', 'PL', { city: 'Warsaw', org: 'OVH' }) }),
  };
  return {
    subscriptions: [
      subscription('A', 'Provider A', a, {
        usage: { upload: 2.1e9, download: 31.4e9, total: 100e9, expire: Math.round((now + 23 * 86_400_000) / 1000) },
        updatedAt: now - 3 * 3_600_000,
        rejected: [
          { line: 14, reason: 'unknown protocol "wireguard2"', excerpt: 'wireguard2://***@203.0.113.9:51820' },
          { line: 22, reason: 'port out of range', excerpt: 'vless://***@example.org:70000' },
        ],
      }),
      subscription('B', 'Backup B', b, { updatedAt: now - 26 * 3_600_000, lastError: 'HTTP 503 from the provider' }),
    ],
    statuses,
    unsupported: { b3: 'hysteria2 needs Xray or sing-box' },
    connection: {
      state: 'connected',
      serverId: 'fi',
      httpProxy: 'http://127.0.0.1:10809',
      socksProxy: 'socks5://127.0.0.1:10808',
      // Up since the return to fi in seedTimeline (minute 19:08 of its 30), a second after it.
      since: now - 30 * 60_000 + 19 * 60_000 + 9_000,
      error: null,
      core: { family: 'v2ray', version: '4.34.0', path: '/usr/bin/v2ray' },
    },
    auto: { subscriptionId: 'A', excluded: { A: ['ir'] }, returnCandidate: null, networkLostUntil: null, timeline: seedTimeline(now) },
    settings: { ...DEFAULT_SETTINGS, routing: { ...DEFAULT_SETTINGS.routing, preset: 'ir' } },
    // v2ray 4.34 has neither of Xray's anti-DPI options.
    core: { family: 'v2ray', version: '4.34.0', path: '/usr/bin/v2ray', antiDpi: { fragment: false, noise: false } },
    testProgress: { running: false, done: 0, total: 0 },
    speedTest: IDLE_SPEED_TEST,
    demo: true,
    problems: [],
    importRequests: [],
    routing: { preset: 'ir', presetInForce: 'ir', dataDate: '2026-06-17', dataSource: '@ip-location-db/geo-whois-asn-country 2.3.2026061719 (CC0-1.0)', notices: [] },
  };
}

/** `count` servers spread over `subscriptions` subscriptions, half of them with a ping. */
export function largeSnapshot(now: number, count: number, subscriptions = 5): AppSnapshot {
  const base = sampleSnapshot(now);
  const countries = ['FI', 'NL', 'DE', 'SE', 'PL', 'US', 'JP', 'SG', 'GB', 'FR', 'CA', 'TR'];
  const subs: Subscription[] = [];
  const statuses: Record<string, ServerStatus> = {};
  for (let s = 0; s < subscriptions; s++) {
    const servers: Server[] = [];
    for (let i = s; i < count; i += subscriptions) {
      const id = `s${i}`;
      servers.push(server(id, `S${s}`, `Server ${i}`));
      if (i % 2 === 0) {
        const country = countries[i % countries.length]!;
        statuses[id] = status(id, { delayMs: 20 + ((i * 37) % 600), testedAt: now, ipInfo: ipInfo(`10.${s}.${(i >> 8) & 255}.${i & 255}`, country) });
      }
    }
    subs.push(subscription(`S${s}`, `Subscription ${s + 1}`, servers));
  }
  return { ...base, subscriptions: subs, statuses, unsupported: {}, auto: { ...base.auto, subscriptionId: null, excluded: {}, timeline: [] } };
}

/**
 * The cores a host would list for `snapshot`: its core as the main one, sing-box beside it, and
 * the other main core available (Xray 26.3.27 and v2ray 4.34.0, as on this project's machines).
 */
export function sampleCoreList(snapshot: AppSnapshot): CoreList {
  const servers = snapshot.subscriptions.reduce((n, s) => n + s.servers.length, 0);
  const cannot = Object.keys(snapshot.unsupported).length;
  const abilities = (protocols: string[], transports: string[], securities: string[], refuted: string[] = []): CoreAbilities => ({
    protocols,
    transports,
    securities,
    features: [],
    shadowsocksMethods: ['aes-128-gcm', 'chacha20-ietf-poly1305'],
    confirmed: protocols.map((p) => `protocol:${p}`),
    refuted,
  });
  const xray: CoreEntry = {
    name: 'xray',
    version: '26.3.27',
    path: '/opt/steadfast-vpn/resources/core/xray',
    source: 'bundled',
    role: 'available',
    abilities: abilities(['http', 'hysteria2', 'shadowsocks', 'socks', 'trojan', 'vless', 'vmess', 'wireguard'], ['grpc', 'httpupgrade', 'tcp', 'ws', 'xhttp'], ['none', 'reality', 'tls'], ['network:quic']),
    problem: null,
    carries: 0,
  };
  const v2ray: CoreEntry = {
    name: 'v2ray',
    version: '4.34.0',
    path: '/usr/bin/v2ray',
    source: 'path',
    role: 'available',
    abilities: abilities(['http', 'shadowsocks', 'socks', 'trojan', 'vless', 'vmess'], ['h2', 'kcp', 'quic', 'tcp', 'ws'], ['none', 'tls'], ['network:grpc']),
    problem: null,
    carries: 0,
  };
  const singBox: CoreEntry = { name: 'sing-box', version: '1.14.1', path: '/opt/steadfast-vpn/resources/core/sing-box', source: 'bundled', role: 'carrier', abilities: abilities([], [], []), problem: null, carries: 0 };
  const core = snapshot.core;
  if (!core) return { main: null, problem: 'No core found: neither xray nor v2ray is in PATH.', cores: [{ ...singBox, role: 'available' }], serverCount: servers, uncarried: servers };
  const [main, other] = core.family === 'xray' ? [xray, v2ray] : [v2ray, xray];
  return {
    main: main.name as CoreName,
    problem: null,
    cores: [{ ...main, version: core.version, path: core.path, role: 'main', carries: servers - cannot }, singBox, other],
    serverCount: servers,
    uncarried: cannot,
  };
}
