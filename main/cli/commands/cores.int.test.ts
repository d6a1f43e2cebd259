/**
 * `npm run cli -- cores` against the real cores of this machine: Xray and sing-box where setup
 * builds them (bundled), Debian's v2ray on PATH. Each is asked by its own binary, and every server
 * of a subscription is carried by the first core in use that can run it.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { labCore } from '../../../app/core/testing/cores';
import type { CoreEntry, CoreName, ServerCarrier } from '../../../shared/domain/cores';
import type { CoresOutput } from './cores';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const PBK = 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw';
const vmess = (fields: Record<string, string>) => `vmess://${Buffer.from(JSON.stringify({ v: '2', add: '127.0.0.1', port: '443', id: UUID, net: 'tcp', type: 'none', tls: '', ...fields })).toString('base64')}`;
const links = [
  `vless://${UUID}@127.0.0.1:443?security=reality&pbk=${PBK}&sni=www.example.com&sid=6ba85179e30d4fc2&flow=xtls-rprx-vision&type=tcp#Reality`,
  vmess({ ps: 'Plain', aid: '0' }),
  vmess({ ps: 'Legacy', aid: '64' }),
  'trojan://secret@127.0.0.1:443?security=tls&sni=example.com#Trojan',
  'hysteria2://secret@127.0.0.1:443?sni=example.com#Hy2',
  `tuic://${UUID}:secret@127.0.0.1:443?sni=example.com&congestion_control=bbr&alpn=h3#TUIC`,
];

const dir = mkdtempSync(join(tmpdir(), 'cli-cores-'));
const subscription = join(dir, 'sub.txt');
writeFileSync(subscription, `${links.join('\n')}\n`);

const cli = async (args: string[]) => {
  const result = await execa('npx', ['tsx', 'main/cli/index.ts', 'cores', ...args], {
    reject: false,
    cwd: join(import.meta.dirname, '../../..'),
    env: { STEADFAST_DATA_DIR: dir, PATH: process.env.PATH },
  });
  return { ...result, out: result.stdout ? (JSON.parse(result.stdout) as CoresOutput) : null };
};

const same = (a: string, b: string) => realpathSync(a) === realpathSync(b);
const core = (out: CoresOutput, name: string) => out.cores.find((c) => c.name === name) as CoreEntry;
const server = (out: CoresOutput, name: string) => out.servers!.find((s) => s.name === name) as ServerCarrier;

/** The rule itself: each server goes to the first core in use without a reason against it. */
function expectFirstAble(out: CoresOutput): void {
  const inUse = out.cores.filter((c) => c.role !== 'available').map((c) => c.name as CoreName);
  for (const row of out.servers!) {
    const first = inUse.find((name) => row.reasons[name] === undefined) ?? null;
    expect(row.core, row.name).toBe(first);
    expect(Object.keys(row.reasons), row.name).toEqual(inUse.slice(0, first === null ? inUse.length : inUse.indexOf(first)));
  }
}

describe('cli cores', () => {
  it('lists Xray 26.3.27 as the main core, sing-box 1.14.1 beside it, v2ray 4.34 available, and who carries each server', async () => {
    const { exitCode, out, stderr } = await cli(['--subscription', subscription]);
    expect(exitCode, stderr).toBe(0);
    expect(out!.main).toBe('xray');
    expect(out!.cores.map((c) => [c.name, c.version, c.role, c.source])).toEqual([
      ['xray', '26.3.27', 'main', 'bundled'],
      ['sing-box', '1.14.1', 'carrier', 'bundled'],
      ['v2ray', '4.34.0', 'available', 'path'],
    ]);
    expect(same(core(out!, 'xray').path, labCore('xray'))).toBe(true);
    expect(same(core(out!, 'sing-box').path, labCore('sing-box'))).toBe(true);
    expect(same(core(out!, 'v2ray').path, labCore('v2ray'))).toBe(true);
    // What each binary itself confirmed or refuted, not only what its version's table claims.
    const xray = core(out!, 'xray').abilities!;
    expect(xray.confirmed).toEqual(expect.arrayContaining(['protocol:vless', 'protocol:hysteria2', 'network:xhttp', 'feature:vless-encryption', 'feature:freedom-fragment', 'shadowsocks:2022-blake3-aes-128-gcm']));
    expect(xray.refuted).toEqual(expect.arrayContaining(['network:quic', 'shadowsocks:rc4-md5']));
    expect(xray.securities).toContain('reality');
    const v2ray = core(out!, 'v2ray').abilities!;
    expect(v2ray.refuted).toEqual(expect.arrayContaining(['network:grpc', 'shadowsocks:2022-blake3-aes-128-gcm']));
    expect(v2ray.protocols).not.toContain('hysteria2');

    expect(out!.serverCount).toBe(links.length);
    for (const name of ['Reality', 'Plain', 'Trojan', 'Hy2']) expect(server(out!, name)).toMatchObject({ core: 'xray', reasons: {} });
    expect(server(out!, 'Legacy').reasons.xray).toMatch(/^not supported by Xray 26\.3\.27: VMess with alterId > 0/);
    expect(server(out!, 'TUIC').reasons.xray).toMatch(/^not supported by Xray 26\.3\.27: TUIC needs/);
    expectFirstAble(out!);
    expect(out!.uncarried).toBe(out!.servers!.filter((s) => s.core === null).length);
    expect(core(out!, 'xray').carries).toBe(4);
    expect(core(out!, 'v2ray').carries).toBe(0);
    // The JSON is the user's own data on their own terminal, but the reasons name no secret.
    expect(JSON.stringify(out!.servers)).not.toContain('secret');
  }, 120_000);

  it('--core v2ray makes v2ray the main core beside a bundled Xray: it carries what it can, and says why not the rest', async () => {
    const { exitCode, out, stderr } = await cli(['--subscription', subscription, '--core', 'v2ray']);
    expect(exitCode, stderr).toBe(0);
    expect(out!.main).toBe('v2ray');
    expect(out!.cores.map((c) => [c.name, c.role, c.source])).toEqual([
      ['v2ray', 'main', 'setting'],
      ['sing-box', 'carrier', 'bundled'],
      ['xray', 'available', 'bundled'],
    ]);
    expect(server(out!, 'Plain')).toMatchObject({ core: 'v2ray', reasons: {} });
    expect(server(out!, 'Legacy')).toMatchObject({ core: 'v2ray', reasons: {} });
    expect(server(out!, 'Reality').reasons.v2ray).toBe('not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0');
    expect(server(out!, 'Hy2').reasons.v2ray).toMatch(/Hysteria2 needs Xray ≥ 26\.1\.13/);
    expectFirstAble(out!);
  }, 120_000);

  it('a chosen core that is not there: exit 1, no main core, the reason, and the cores that are', async () => {
    const { exitCode, out, stderr } = await cli(['--core', join(dir, 'no-such', 'xray')]);
    expect(exitCode).toBe(1);
    expect(out!.main).toBeNull();
    expect(out!.problem).toMatch(/The core set in Settings \(.*no-such\/xray\) does not exist or is not an executable file/);
    expect(stderr).toContain(out!.problem);
    expect(out!.cores.every((c) => c.role === 'available' && c.carries === 0)).toBe(true);
    expect(out!.cores.map((c) => c.name).sort()).toEqual(['sing-box', 'v2ray', 'xray']);
  }, 120_000);
});
