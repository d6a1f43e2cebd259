import { describe, expect, it } from 'vitest';
import type { CoreName } from '../../shared/domain/cores';
import type { Server } from '../../shared/domain/server';
import type { CoreProfile } from '../core';
import { sampleServer } from '../core/samples';
import { profileFromTable } from '../core/testing/profile';
import { coreListOf } from './core-list';
import type { CoreSurvey, SurveyedCore } from './core-survey';

const xray = profileFromTable('xray', '26.3.27', '/app/resources/core/linux-x64/xray');
const v2ray = profileFromTable('v2ray', '4.34.0', '/usr/bin/v2ray');
const singBox = profileFromTable('sing-box', '1.14.1', '/app/resources/core/linux-x64/sing-box');

const surveyed = (profile: CoreProfile, source: SurveyedCore['source']): SurveyedCore => ({ name: profile.family, path: profile.path, source, profile, problem: null });

const named = (server: Server, id: string, extra: Partial<Server> = {}): Server => ({ ...server, id, name: id, ...extra }) as Server;
const reality = (s: Server): Server => ({ ...s, security: { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba85179e30d4fc2' } });

const servers: Server[] = [
  named(sampleServer('vmess'), 'vmess-tcp'),
  named(reality(sampleServer('vless', 'tcp', { flow: 'xtls-rprx-vision' } as Partial<Server>)), 'vless-reality-vision'),
  // Legacy VMess authentication: v2ray 4.34 runs it, Xray removed it.
  named(sampleServer('vmess', 'tcp', { alterId: 64 } as Partial<Server>), 'vmess-alterid'),
  named(sampleServer('hysteria2'), 'hysteria2'),
  named(sampleServer('tuic'), 'tuic'),
  // Chained through the REALITY server: whoever carries it must run its upstream too.
  named(sampleServer('vmess', 'tcp'), 'vmess-via-reality', { via: 'vless-reality-vision' }),
];

describe('coreListOf: which core carries each server', () => {
  // The main core first, then each carrier in turn; whatever the cores are, nothing about any one is assumed.
  const survey: CoreSurvey = { main: surveyed(v2ray, 'path'), mainProblem: null, carriers: [surveyed(xray, 'bundled')], available: [] };
  const { list, carriers } = coreListOf(survey, servers);
  const byId = Object.fromEntries(carriers.map((c) => [c.serverId, c]));

  it.each<[string, CoreName | null, Partial<Record<CoreName, RegExp>>]>([
    ['vmess-tcp', 'v2ray', {}],
    ['vless-reality-vision', 'xray', { v2ray: /^not supported by v2ray 4\.34\.0: REALITY needs Xray ≥ 1\.8\.0$/ }],
    // Both could; the main core comes first, so the carrier is never asked.
    ['vmess-alterid', 'v2ray', {}],
    ['hysteria2', 'xray', { v2ray: /Hysteria2 needs Xray ≥ 26\.1\.13/ }],
    ['tuic', null, { v2ray: /TUIC needs/, xray: /^not supported by Xray 26\.3\.27: TUIC needs/ }],
    ['vmess-via-reality', 'xray', { v2ray: /its upstream server vless-reality-vision cannot run \(REALITY needs Xray/ }],
  ])('%s → %s', (id, core, reasons) => {
    const row = byId[id]!;
    expect(row.core).toBe(core);
    expect(Object.keys(row.reasons).sort()).toEqual(Object.keys(reasons).sort());
    for (const [name, pattern] of Object.entries(reasons)) expect(row.reasons[name as CoreName]).toMatch(pattern!);
  });

  it('counts what each core carries, and the servers none can', () => {
    expect(list.cores.map((c) => [c.name, c.role, c.carries])).toEqual([
      ['v2ray', 'main', 2],
      ['xray', 'carrier', 3],
    ]);
    expect(list).toMatchObject({ main: 'v2ray', problem: null, serverCount: 6, uncarried: 1 });
  });

  it('the reasons never carry a credential', () => {
    const text = JSON.stringify(carriers);
    expect(text).not.toContain('0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11');
    expect(text).not.toContain('sample-password');
  });
});

describe('coreListOf: the cores as users see them', () => {
  const survey: CoreSurvey = { main: surveyed(xray, 'bundled'), mainProblem: null, carriers: [surveyed(singBox, 'bundled')], available: [surveyed(v2ray, 'path')] };
  const { list, carriers } = coreListOf(survey, servers);

  it('Xray is the main core, sing-box its carrier, v2ray available: each with its version, path, where it was found and what it runs', () => {
    expect(list.main).toBe('xray');
    expect(list.cores.map((c) => [c.name, c.version, c.path, c.source, c.role])).toEqual([
      ['xray', '26.3.27', '/app/resources/core/linux-x64/xray', 'bundled', 'main'],
      ['sing-box', '1.14.1', '/app/resources/core/linux-x64/sing-box', 'bundled', 'carrier'],
      ['v2ray', '4.34.0', '/usr/bin/v2ray', 'path', 'available'],
    ]);
    const abilities = list.cores[0]!.abilities!;
    expect(abilities.protocols).toEqual(expect.arrayContaining(['vless', 'hysteria2', 'wireguard']));
    expect(abilities.transports).toEqual(expect.arrayContaining(['xhttp', 'grpc', 'httpupgrade']));
    expect(abilities.securities).toEqual(['none', 'reality', 'tls']);
    expect(abilities.features).toEqual(expect.arrayContaining(['vision-flow', 'freedom-fragment', 'tls-pinned-cert']));
    expect(abilities.shadowsocksMethods).toContain('2022-blake3-aes-128-gcm');
    // An available core carries nothing: only the cores in use are asked.
    expect(list.cores[2]!.carries).toBe(0);
    expect(carriers.every((c) => c.reasons.v2ray === undefined)).toBe(true);
  });

  it('what Xray cannot run goes to sing-box when it can, or keeps both reasons', () => {
    const vmessAlterId = carriers.find((c) => c.serverId === 'vmess-alterid')!;
    expect(vmessAlterId.reasons.xray).toMatch(/alterId > 0/);
    const tuic = carriers.find((c) => c.serverId === 'tuic')!;
    expect(tuic.reasons.xray).toMatch(/TUIC needs/);
    for (const row of [vmessAlterId, tuic]) {
      if (row.core === 'sing-box') expect(row.reasons['sing-box']).toBeUndefined();
      else expect([row.core, row.reasons['sing-box']]).toEqual([null, expect.stringMatching(/^not supported by sing-box 1\.14\.1: /)]);
    }
    expect(carriers.find((c) => c.serverId === 'vless-reality-vision')).toMatchObject({ core: 'xray', reasons: {} });
  });

  it('without a main core nothing carries, sing-box included, and the list says why', () => {
    const none = coreListOf({ main: null, mainProblem: 'No core found: neither xray nor v2ray is in PATH', carriers: [], available: [surveyed(singBox, 'bundled')] }, servers);
    expect(none.list).toMatchObject({ main: null, problem: 'No core found: neither xray nor v2ray is in PATH', uncarried: servers.length });
    expect(none.list.cores.map((c) => [c.name, c.role, c.carries])).toEqual([['sing-box', 'available', 0]]);
    expect(none.carriers.every((c) => c.core === null && Object.keys(c.reasons).length === 0)).toBe(true);
  });

  it('a program that is no core is listed with why, and without abilities', () => {
    const broken: SurveyedCore = { name: 'xray', path: '/opt/broken/xray', source: 'path', profile: null, problem: '/opt/broken/xray is not a core this app knows' };
    const out = coreListOf({ ...survey, available: [broken] }, []);
    expect(out.list.cores[2]).toEqual({ name: 'xray', version: null, path: '/opt/broken/xray', source: 'path', role: 'available', abilities: null, problem: '/opt/broken/xray is not a core this app knows', carries: 0 });
  });
});
