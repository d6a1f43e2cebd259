import { stat } from 'node:fs/promises';
import { NETWORKS, type Network, PROTOCOLS, type Protocol, SECURITIES, type Server } from '../../shared/domain/server';
import {
  AEAD_METHODS,
  applySemanticLimits,
  capabilitiesFromTable,
  type CoreCapabilities,
  type CoreFeature,
  type CoreProfile,
  LEGACY_STREAM_METHODS,
  PLAIN_METHODS,
  SS2022_METHODS,
  XCHACHA_METHODS,
} from './capabilities';
import { antiDpiOutbound } from './anti-dpi';
import { outboundFor } from './outbound';
import { runCore, testConfig, withScratchDir } from './run-core';
import { sampleServer, ss2022Key } from './samples';
import { parseBuildTags, SING_BOX_MINIMUM } from './sing-box/capabilities';
import { singBoxOutbound } from './sing-box/outbound';
import { atLeast, parseCoreVersion, type ParsedCoreVersion } from './version';

/** A config holding only the server's outbounds (or endpoint), for `sing-box check`. */
function singBoxCheckConfig(server: Server, writer: CoreProfile): Record<string, unknown> {
  const pieces = singBoxOutbound(server, writer, 'check');
  return { log: { level: 'error' }, outbounds: pieces.outbounds, ...(pieces.endpoints.length ? { endpoints: pieces.endpoints } : {}) };
}

export interface DetectOptions {
  /** Skip asking the binary (tests of the table; a core that cannot run here). */
  verify?: boolean;
  /** How many config tests run at once. */
  concurrency?: number;
}

const cache = new Map<string, Promise<CoreProfile>>();

/**
 * Identifies the core at `path`: family and version from its version banner, capabilities from
 * the table (capabilities.ts), then confirmed or corrected by the binary itself — every protocol,
 * transport and shadowsocks method the config test can refute is tried as a tiny config. Cached
 * per (path, mtime, size) for the life of the process, so a replaced binary is detected afresh.
 * Rejects with a clear message when the file is not a core this app knows.
 */
export async function detectCore(path: string, opts: DetectOptions = {}): Promise<CoreProfile> {
  const info = await stat(path);
  const key = `${path}\0${info.mtimeMs}\0${info.size}\0${opts.verify !== false}`;
  let pending = cache.get(key);
  if (!pending) {
    pending = detectUncached(path, opts);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}

async function detectUncached(path: string, opts: DetectOptions): Promise<CoreProfile> {
  return withScratchDir(async (dir) => {
    const { parsed, output } = await readVersion(path, dir);
    // sing-box's abilities depend on its build tags, which `sing-box version` prints.
    const buildTags = parsed.family === 'sing-box' ? parseBuildTags(output) : null;
    const capabilities = capabilitiesFromTable(parsed.family, parsed.version, buildTags);
    const profile: CoreProfile = { ...parsed, path, capabilities, verified: { confirmed: [], refuted: [] }, ...(buildTags ? { buildTags } : {}) };
    if (opts.verify === false) return profile;
    // A sing-box too old to be driven runs nothing; there is nothing for its checker to confirm.
    if (parsed.family === 'sing-box' && !atLeast(parsed.version, SING_BOX_MINIMUM)) return profile;
    await verifyWithBinary(profile, dir, opts.concurrency ?? 4);
    applySemanticLimits(profile.family, profile.version, profile.capabilities);
    return profile;
  });
}

async function readVersion(path: string, dir: string): Promise<{ parsed: ParsedCoreVersion; output: string }> {
  // `-version` first: v2ray 4 would treat the bare word `version` as "run" and look for a config.
  const attempts = path.toLowerCase().includes('sing-box') ? [['version'], ['-version']] : [['-version'], ['version']];
  let lastOutput = '';
  for (const args of attempts) {
    const result = await runCore(path, args, dir, 3000);
    const parsed = parseCoreVersion(result.output);
    if (parsed) return { parsed, output: result.output };
    lastOutput = result.output;
  }
  const firstLine = lastOutput.split('\n').find((l) => l.trim()) ?? '(no output)';
  throw new Error(`${path} is not a core this app knows (v2ray, Xray or sing-box); it printed: ${firstLine.slice(0, 200)}`);
}

interface Check {
  id: string;
  server: Server;
  apply: (caps: CoreCapabilities, supported: boolean) => void;
  /**
   * An outbound to test instead of the server's, with one the core must refuse: a field a core
   * does not know is ignored (its config test passes), so support shows as accepting a valid
   * value and refusing an invalid one.
   */
  outbounds?: { valid: Record<string, unknown>; invalid: Record<string, unknown> };
}

function toggle<T>(set: Set<T>, item: T, on: boolean): void {
  if (on) set.add(item);
  else set.delete(item);
}

/**
 * VLESS Encryption with one X25519 key (the curve's base point, a valid public key): the
 * smallest form Xray's config test parses; a core without the feature insists on "none".
 */
const SAMPLE_VLESS_ENCRYPTION = `mlkem768x25519plus.native.0rtt.${Buffer.from([9, ...new Array<number>(31).fill(0)]).toString('base64url')}`;

/** Each check is a tiny config the binary's own config test accepts only if it has the feature. */
function checksFor(family: CoreProfile['family']): Check[] {
  if (family === 'sing-box') return singBoxChecks();
  const checks: Check[] = [];
  // TUIC, Hysteria v1, AnyTLS and Naive have no v2ray-family config at all; Hysteria2 is written only in Xray's form.
  const refutable: Protocol[] = PROTOCOLS.filter((p) => !['tuic', 'hysteria', 'anytls', 'naive'].includes(p) && (p !== 'hysteria2' || family === 'xray'));
  for (const protocol of refutable) {
    checks.push({ id: `protocol:${protocol}`, server: sampleServer(protocol), apply: (c, ok) => toggle(c.protocols, protocol, ok) });
  }
  for (const network of NETWORKS) {
    if (network === 'tcp') continue;
    checks.push({ id: `network:${network}`, server: sampleServer('vmess', network as Network), apply: (c, ok) => toggle(c.networks, network, ok) });
  }
  if (family === 'xray') {
    checks.push({
      id: 'feature:hysteria2-salamander',
      server: sampleServer('hysteria2', 'tcp', { obfs: { type: 'salamander', password: 'sample-obfs' } } as Partial<Server>),
      apply: (c, ok) => toggle(c.features, 'hysteria2-salamander', ok),
    });
    checks.push({
      id: 'feature:hysteria2-port-hopping',
      server: sampleServer('hysteria2', 'tcp', { portHopping: '443,20000-30000' } as Partial<Server>),
      apply: (c, ok) => toggle(c.features, 'hysteria2-port-hopping', ok),
    });
    // A hop interval under 5 s is refused by a core that reads quicParams, ignored by one that does not.
    const hopping = (interval: string) => ({
      protocol: 'hysteria',
      settings: { version: 2, address: '127.0.0.1', port: 443 },
      streamSettings: {
        network: 'hysteria',
        security: 'tls',
        tlsSettings: { serverName: 'example.com', alpn: ['h3'] },
        hysteriaSettings: { version: 2, auth: 'sample-password' },
        finalmask: { quicParams: { udpHop: { ports: '443,20000-30000', interval } } },
      },
    });
    checks.push({
      id: 'feature:hysteria2-quic-params',
      server: sampleServer('hysteria2'),
      outbounds: { valid: hopping('30'), invalid: hopping('1') },
      apply: (c, ok) => toggle(c.features, 'hysteria2-quic-params', ok),
    });
    // An unknown mask is refused by a core that reads FinalMask, ignored (as the whole field) by one that does not.
    const kcpMasked = (type: string) => ({
      protocol: 'vmess',
      settings: { vnext: [{ address: '127.0.0.1', port: 443, users: [{ id: '00000000-0000-4000-8000-000000000000' }] }] },
      streamSettings: { network: 'kcp', kcpSettings: {}, finalmask: { udp: [{ type }, { type: 'mkcp-original' }] } },
    });
    checks.push({
      id: 'feature:kcp-finalmask',
      server: sampleServer('vmess', 'kcp'),
      outbounds: { valid: kcpMasked('header-wechat'), invalid: kcpMasked('header-not-a-mask') },
      apply: (c, ok) => toggle(c.features, 'kcp-finalmask', ok),
    });
    checks.push({
      id: 'feature:vless-encryption',
      server: sampleServer('vless', 'tcp', { encryption: SAMPLE_VLESS_ENCRYPTION } as Partial<Server>),
      apply: (c, ok) => toggle(c.features, 'vless-encryption', ok),
    });
    const fragment = { packets: 'tlshello', length: '100-200', interval: '10-20' };
    checks.push({
      id: 'feature:freedom-fragment',
      server: sampleServer('vmess'),
      outbounds: { valid: antiDpiOutbound({ fragment, noise: null }), invalid: antiDpiOutbound({ fragment: { ...fragment, packets: 'not-a-packet-range' }, noise: null }) },
      apply: (c, ok) => toggle(c.features, 'freedom-fragment', ok),
    });
    const noise = { type: 'rand', packet: '10-20', delay: '10-16' } as const;
    checks.push({
      id: 'feature:freedom-noises',
      server: sampleServer('vmess'),
      outbounds: { valid: antiDpiOutbound({ fragment: null, noise }), invalid: { ...antiDpiOutbound({ fragment: null, noise: null }), settings: { noises: [{ ...noise, type: 'not-a-noise-type' }] } } },
      apply: (c, ok) => toggle(c.features, 'freedom-noises', ok),
    });
  }
  checks.push(...shadowsocksMethodChecks());
  return checks;
}

/**
 * sing-box's checker refuses unknown fields and outbounds its build lacks ("naive outbound is not
 * included in this build"), so every protocol, transport, security and plugin is asked about.
 * XHTTP and mKCP have no sing-box form at all and are not asked.
 */
function singBoxChecks(): Check[] {
  const checks: Check[] = [];
  for (const protocol of PROTOCOLS) {
    checks.push({ id: `protocol:${protocol}`, server: sampleServer(protocol), apply: (c, ok) => toggle(c.protocols, protocol, ok) });
  }
  for (const network of NETWORKS) {
    if (network === 'tcp' || network === 'xhttp' || network === 'kcp') continue;
    // The QUIC transport runs only under TLS.
    const extra = network === 'quic' ? ({ security: { type: 'tls', sni: 'example.com' } } as Partial<Server>) : {};
    checks.push({ id: `network:${network}`, server: sampleServer('vmess', network as Network, extra), apply: (c, ok) => toggle(c.networks, network, ok) });
  }
  const reality = { type: 'reality', sni: 'example.com', publicKey: SAMPLE_REALITY_KEY, shortId: '01' } as const;
  checks.push({ id: 'security:reality', server: sampleServer('vless', 'tcp', { security: reality, flow: 'xtls-rprx-vision' } as Partial<Server>), apply: (c, ok) => toggle(c.securities, 'reality', ok) });
  const feature = (name: CoreFeature, server: Server): Check => ({ id: `feature:${name}`, server, apply: (c, ok) => toggle(c.features, name, ok) });
  checks.push(
    feature('tls-fingerprint', sampleServer('trojan', 'tcp', { security: { type: 'tls', sni: 'example.com', fingerprint: 'chrome' } } as Partial<Server>)),
    feature('hysteria2-salamander', sampleServer('hysteria2', 'tcp', { obfs: { type: 'salamander', password: 'sample-obfs' } } as Partial<Server>)),
    feature('hysteria2-port-hopping', sampleServer('hysteria2', 'tcp', { portHopping: '443,20000-30000' } as Partial<Server>)),
    feature('shadowtls', sampleServer('shadowsocks', 'tcp', { plugin: { name: 'shadow-tls', options: 'host=example.com;password=sample;version=3' } } as Partial<Server>)),
    feature('ss-plugin-obfs', sampleServer('shadowsocks', 'tcp', { plugin: { name: 'obfs-local', options: 'obfs=http;obfs-host=example.com' } } as Partial<Server>)),
    feature('ss-plugin-v2ray', sampleServer('shadowsocks', 'tcp', { plugin: { name: 'v2ray-plugin', options: 'mode=websocket;host=example.com;path=/sample' } } as Partial<Server>)),
  );
  checks.push(...shadowsocksMethodChecks());
  return checks;
}

/** One check per shadowsocks method, for every family: each a sample server the config test must take. */
function shadowsocksMethodChecks(): Check[] {
  return [...AEAD_METHODS, ...PLAIN_METHODS, ...XCHACHA_METHODS, ...SS2022_METHODS, ...LEGACY_STREAM_METHODS].map((method) => ({
    id: `shadowsocks:${method}`,
    server: sampleServer('shadowsocks', 'tcp', { method, password: method.startsWith('2022-') ? ss2022Key(method) : 'sample-password' } as Partial<Server>),
    apply: (c: CoreCapabilities, ok: boolean) => {
      toggle(c.shadowsocksMethods, method, ok);
      if (method.startsWith('2022-') && ok) c.features.add('ss2022');
    },
  }));
}

/** An X25519 public key in REALITY's base64url form (any 32 bytes pass the checker). */
const SAMPLE_REALITY_KEY = Buffer.alloc(32, 9).toString('base64url');

/** The optional features the binary is asked about (the `feature:` checks). */
function featuresChecked(family: CoreProfile['family']): string[] {
  return checksFor(family)
    .filter((c) => c.id.startsWith('feature:'))
    .map((c) => c.id.slice('feature:'.length));
}

/**
 * A profile that claims everything, so the generator writes each sample as it would if supported;
 * Hysteria2 samples in the transport's older form, which every Xray with it accepts (the newer
 * `quicParams` form has its own check).
 */
function permissive(profile: CoreProfile): CoreProfile {
  const features = new Set([...profile.capabilities.features, ...featuresChecked(profile.family)]);
  features.delete('hysteria2-quic-params');
  return {
    ...profile,
    capabilities: {
      protocols: new Set(PROTOCOLS),
      networks: new Set(NETWORKS),
      securities: profile.family === 'sing-box' ? new Set(SECURITIES) : profile.capabilities.securities,
      features,
      shadowsocksMethods: new Set(checksFor(profile.family).filter((c) => c.id.startsWith('shadowsocks:')).map((c) => c.id.slice('shadowsocks:'.length))),
    },
  };
}

async function verifyWithBinary(profile: CoreProfile, dir: string, concurrency: number): Promise<void> {
  const writer = permissive(profile);
  const checks = checksFor(profile.family);
  const results: boolean[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < checks.length) {
      const index = next++;
      const check = checks[index]!;
      const run = (outbound: Record<string, unknown>, name: string) => testConfig(profile, { log: { loglevel: 'none' }, outbounds: [outbound] }, dir, name);
      if (profile.family === 'sing-box') {
        results[index] = await testConfig(profile, singBoxCheckConfig(check.server, writer), dir, `check-${index}`).then(
          (r) => r.ok,
          () => false,
        );
      } else if (check.outbounds) {
        results[index] = (await run(check.outbounds.valid, `check-${index}`)).ok && !(await run(check.outbounds.invalid, `check-${index}-invalid`)).ok;
      } else {
        results[index] = (await run(outboundFor(check.server, writer, 'check'), `check-${index}`)).ok;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  const ss2022Before = profile.capabilities.features.has('ss2022');
  if (ss2022Before) profile.capabilities.features.delete('ss2022');
  checks.forEach((check, i) => {
    const ok = results[i] === true;
    check.apply(profile.capabilities, ok);
    (ok ? profile.verified.confirmed : profile.verified.refuted).push(check.id);
  });
}
