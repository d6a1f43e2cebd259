/**
 * detectCore's flow against stand-in binaries for the families this machine has no build of
 * (Xray, v2ray 5, sing-box): small shell scripts that print real version banners and answer the
 * family's config-test command, refusing chosen features the way the real core does. The real
 * v2ray 4.34 is exercised in core.int.test.ts.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCore } from './detect';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'detect-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A script that logs its arguments, prints `banner` for the version command and tests configs with `testArgs`. */
async function standIn(name: string, opts: { versionArgs: string; banner: string; testArgs: string; refuse: string[] }): Promise<{ path: string; calls: () => Promise<string[]> }> {
  const path = join(root, name);
  const log = `${path}.calls`;
  const refusals = opts.refuse.map((needle) => `  if grep -q '${needle}' "$file"; then echo "failed to build: ${needle}"; exit 23; fi`).join('\n');
  await writeFile(
    path,
    [
      '#!/bin/sh',
      `echo "$*" >> '${log}'`,
      `if [ "$*" = "${opts.versionArgs}" ]; then printf '%s\\n' '${opts.banner}'; exit 0; fi`,
      `case "$*" in "${opts.testArgs} "*)`,
      '  for last; do :; done; file="$last"',
      refusals,
      '  echo "Configuration OK."; exit 0;;',
      'esac',
      'echo "flag provided but not defined: $1"; exit 2',
    ].join('\n'),
  );
  await chmod(path, 0o755);
  return { path, calls: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean) };
}

/**
 * What a real Xray 26's config test refuses in the feature checks' invalid configs (freedom
 * options, a hop interval under 5 s, an unknown FinalMask mask).
 */
const FREEDOM_CHECKS_REFUSED = ['not-a-packet-range', 'not-a-noise-type', '"interval":"1"', 'header-not-a-mask'];

// Each detection runs every check's config test through a shell script: seconds on a busy machine.
describe('detectCore with stand-in binaries', { timeout: 20_000 }, () => {
  it('Xray: `-version`, then `run -test -c FILE` per check; a refused check removes the claim', async () => {
    const xray = await standIn('xray', {
      versionArgs: '-version',
      banner: 'Xray 25.3.6 (Xray, Penetrates Everything.) 2c0a9e4 (go1.24.1 linux/amd64)',
      testArgs: 'run -test -c',
      refuse: ['"protocol":"wireguard"', '"network":"httpupgrade"', '"method":"2022-blake3-chacha20-poly1305"'],
    });
    const core = await detectCore(xray.path);
    expect(core).toMatchObject({ family: 'xray', version: '25.3.6', path: xray.path });
    expect(core.capabilities.protocols.has('wireguard')).toBe(false);
    expect(core.capabilities.networks.has('httpupgrade')).toBe(false);
    expect(core.capabilities.networks.has('xhttp')).toBe(true);
    expect(core.capabilities.shadowsocksMethods.has('2022-blake3-aes-128-gcm')).toBe(true);
    expect(core.capabilities.shadowsocksMethods.has('2022-blake3-chacha20-poly1305')).toBe(false);
    expect(core.capabilities.features.has('ss2022')).toBe(true);
    expect(core.capabilities.securities.has('reality')).toBe(true);
    expect(core.verified.refuted).toEqual(expect.arrayContaining(['protocol:wireguard', 'network:httpupgrade', 'shadowsocks:2022-blake3-chacha20-poly1305']));
    const calls = await xray.calls();
    expect(calls[0]).toBe('-version');
    expect(calls.slice(1).every((c) => c.startsWith('run -test -c '))).toBe(true);
  });

  it('a check the table did not claim but the binary accepts is added (a newer core than the table knows)', async () => {
    const xray = await standIn('xray-hy2', {
      versionArgs: '-version',
      banner: 'Xray 26.1.9 (Xray, Penetrates Everything.) 1a2b3c4 (go1.25.5 linux/amd64)',
      testArgs: 'run -test -c',
      refuse: [],
    });
    const core = await detectCore(xray.path);
    expect(core.capabilities.protocols.has('hysteria2')).toBe(true);
    expect(core.verified.confirmed).toContain('protocol:hysteria2');
    // …but a limit the config test cannot see stays: Xray 26 mKCP needs FinalMask.
    expect(core.capabilities.networks.has('kcp')).toBe(false);
  });

  it('TLS fragment and UDP noise are confirmed only by a binary that takes valid values and refuses invalid ones', async () => {
    const strict = await standIn('xray-freedom', { versionArgs: '-version', banner: 'Xray 25.3.6 (Xray, Penetrates Everything.) 1a2b3c4 (go1.24.1 linux/amd64)', testArgs: 'run -test -c', refuse: FREEDOM_CHECKS_REFUSED });
    const withThem = await detectCore(strict.path);
    expect(withThem.capabilities.features.has('freedom-fragment')).toBe(true);
    expect(withThem.capabilities.features.has('freedom-noises')).toBe(true);
    expect(withThem.verified.confirmed).toEqual(expect.arrayContaining(['feature:freedom-fragment', 'feature:freedom-noises']));
    // A core that ignores fields it does not know passes any config: that confirms nothing.
    const lax = await standIn('xray-ignores-freedom', { versionArgs: '-version', banner: 'Xray 25.3.6 (Xray, Penetrates Everything.) 1a2b3c4 (go1.24.1 linux/amd64)', testArgs: 'run -test -c', refuse: ['not-a-noise-type', '"interval":"1"', 'header-not-a-mask'] });
    const without = await detectCore(lax.path);
    expect(without.capabilities.features.has('freedom-fragment')).toBe(false);
    expect(without.capabilities.features.has('freedom-noises')).toBe(true);
    expect(without.verified.refuted).toEqual(['feature:freedom-fragment']);
  });

  it('mKCP on Xray 26 is written as FinalMask masks only where the binary reads them; an Xray 26 that does not cannot carry mKCP', async () => {
    const banner = 'Xray 26.3.27 (Xray, Penetrates Everything.) 1a2b3c4 (go1.26.1 linux/amd64)';
    const reading = await detectCore((await standIn('xray-finalmask', { versionArgs: '-version', banner, testArgs: 'run -test -c', refuse: FREEDOM_CHECKS_REFUSED })).path);
    expect(reading.capabilities.features.has('kcp-finalmask')).toBe(true);
    expect(reading.capabilities.networks.has('kcp')).toBe(true);
    const ignoring = await detectCore((await standIn('xray-no-finalmask', { versionArgs: '-version', banner, testArgs: 'run -test -c', refuse: FREEDOM_CHECKS_REFUSED.filter((n) => n !== 'header-not-a-mask') })).path);
    expect(ignoring.capabilities.features.has('kcp-finalmask')).toBe(false);
    expect(ignoring.capabilities.networks.has('kcp')).toBe(false);
    // Before 26 the old kcpSettings fields are the only form, and the masks are not asked for.
    const older = await detectCore((await standIn('xray-25-kcp', { versionArgs: '-version', banner: 'Xray 25.3.6 (Xray, Penetrates Everything.) 1a2b3c4 (go1.24.1 linux/amd64)', testArgs: 'run -test -c', refuse: ['not-a-packet-range', 'not-a-noise-type', '"interval":"1"'] })).path);
    expect(older.capabilities.features.has('kcp-finalmask')).toBe(false);
    expect(older.capabilities.networks.has('kcp')).toBe(true);
  });

  it('Hysteria2 salamander is whatever the binary says', async () => {
    const xray = await standIn('xray-no-salamander', {
      versionArgs: '-version',
      banner: 'Xray 26.1.18 (Xray, Penetrates Everything.) 9f8e7d6 (go1.25.5 linux/amd64)',
      testArgs: 'run -test -c',
      refuse: ['salamander', ...FREEDOM_CHECKS_REFUSED],
    });
    const core = await detectCore(xray.path);
    expect(core.capabilities.protocols.has('hysteria2')).toBe(true);
    expect(core.capabilities.features.has('hysteria2-salamander')).toBe(false);
    expect(core.verified.refuted).toEqual(['feature:hysteria2-salamander']);
  });

  it('Hysteria2 port hopping is whatever the binary says', async () => {
    const xray = await standIn('xray-no-udphop', {
      versionArgs: '-version',
      banner: 'Xray 26.1.18 (Xray, Penetrates Everything.) 9f8e7d6 (go1.25.5 linux/amd64)',
      testArgs: 'run -test -c',
      refuse: ['udphop', ...FREEDOM_CHECKS_REFUSED],
    });
    const core = await detectCore(xray.path);
    expect(core.capabilities.features.has('hysteria2-port-hopping')).toBe(false);
    expect(core.capabilities.features.has('hysteria2-salamander')).toBe(true);
    expect(core.verified.refuted).toEqual(['feature:hysteria2-port-hopping']);
  });

  it('Hysteria2 bandwidth and hopping in quicParams: only a binary that refuses a hop interval under 5 s reads them there', async () => {
    const banner = 'Xray 26.3.27 (Xray, Penetrates Everything.) Custom (go1.26.8 linux/amd64)';
    const reading = await standIn('xray-quic-params', { versionArgs: '-version', banner, testArgs: 'run -test -c', refuse: FREEDOM_CHECKS_REFUSED });
    const withThem = await detectCore(reading.path);
    expect(withThem.capabilities.features.has('hysteria2-quic-params')).toBe(true);
    expect(withThem.verified.confirmed).toContain('feature:hysteria2-quic-params');
    // The same version that ignores the field (its config test passes anything there) keeps the older form.
    const ignoring = await standIn('xray-no-quic-params', { versionArgs: '-version', banner, testArgs: 'run -test -c', refuse: ['not-a-packet-range', 'not-a-noise-type', 'header-not-a-mask'] });
    const without = await detectCore(ignoring.path);
    expect(without.capabilities.features.has('hysteria2-quic-params')).toBe(false);
    expect(without.verified.refuted).toEqual(['feature:hysteria2-quic-params']);
  });

  it('VLESS Encryption is whatever the binary says: an Xray that insists on "none" loses it, an older one that takes it gains it', async () => {
    const refusing = await standIn('xray-no-enc', {
      versionArgs: '-version',
      banner: 'Xray 25.10.15 (Xray, Penetrates Everything.) 5d2c1a0 (go1.25.1 linux/amd64)',
      testArgs: 'run -test -c',
      refuse: ['mlkem768x25519plus', ...FREEDOM_CHECKS_REFUSED],
    });
    const without = await detectCore(refusing.path);
    expect(without.capabilities.features.has('vless-encryption')).toBe(false);
    expect(without.verified.refuted).toEqual(['feature:vless-encryption']);

    // The salamander check is its own: refusing VLESS Encryption takes nothing else away.
    expect(without.capabilities.features.has('hysteria2-salamander')).toBe(true);

    const accepting = await standIn('xray-enc', { versionArgs: '-version', banner: 'Xray 25.8.31 (Xray, Penetrates Everything.) 1b2c3d4 (go1.25.0 linux/amd64)', testArgs: 'run -test -c', refuse: FREEDOM_CHECKS_REFUSED });
    const withIt = await detectCore(accepting.path);
    expect(withIt.capabilities.features.has('vless-encryption')).toBe(true);
    expect(withIt.verified.confirmed).toContain('feature:vless-encryption');
  });

  it('v2ray 5: `-version` is refused, `version` answers, configs are tested with `test -c FILE`', async () => {
    const v5 = await standIn('v2ray5', {
      versionArgs: 'version',
      banner: 'V2Ray 5.16.1 (V2Fly, a community-driven edition of V2Ray.) Custom (go1.22.4 linux/amd64)',
      testArgs: 'test -c',
      refuse: ['"network":"xhttp"'],
    });
    const core = await detectCore(v5.path);
    expect(core).toMatchObject({ family: 'v2ray', version: '5.16.1' });
    expect(core.capabilities.networks.has('httpupgrade')).toBe(true);
    const calls = await v5.calls();
    expect(calls.slice(0, 2)).toEqual(['-version', 'version']);
    expect(calls.slice(2).every((c) => c.startsWith('test -c '))).toBe(true);
  });

  it('sing-box older than 1.12: asks `version` first, is reported, and nothing is tested (it is too old to carry servers)', async () => {
    const singBox = await standIn('sing-box', {
      versionArgs: 'version',
      banner: 'sing-box version 1.10.1',
      testArgs: 'check -c',
      refuse: [],
    });
    const core = await detectCore(singBox.path);
    expect(core).toMatchObject({ family: 'sing-box', version: '1.10.1' });
    expect(core.capabilities.protocols.size).toBe(0);
    expect(await singBox.calls()).toEqual(['version']);
  });

  it('caches per (path, mtime, size): the same file is asked once, a replaced file again', async () => {
    const xray = await standIn('xray-cache', { versionArgs: '-version', banner: 'Xray 1.8.24 (Xray, Penetrates Everything.) 3b2d10f (go1.22.5 linux/amd64)', testArgs: 'run -test -c', refuse: FREEDOM_CHECKS_REFUSED });
    const first = await detectCore(xray.path, { verify: false });
    expect(await detectCore(xray.path, { verify: false })).toBe(first);
    expect(await xray.calls()).toEqual(['-version']);
    await writeFile(xray.path, (await readFile(xray.path, 'utf8')).replace('1.8.24', '1.8.23') + '\n# replaced\n');
    const second = await detectCore(xray.path, { verify: false });
    expect(second.version).toBe('1.8.23');
  });

  it('rejects a program that is not a core, quoting what it printed', async () => {
    const other = await standIn('not-a-core', { versionArgs: '-version', banner: 'curl 8.5.0 (x86_64-pc-linux-gnu)', testArgs: 'nothing', refuse: [] });
    await expect(detectCore(other.path)).rejects.toThrow(/is not a core this app knows .*flag provided but not defined|curl 8.5.0/);
  });
});
