import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { chooseCarrier } from './carrier';
import { sampleServer } from './samples';
import { profileFromTable, SING_BOX_HERE_TAGS } from './testing/profile';

const xray = profileFromTable('xray', '26.3.27');
const v2ray = profileFromTable('v2ray', '4.34.0');
const singBox = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
const tls = { type: 'tls', sni: 'example.com' } as const;
const reality = { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba8' } as const;
const s = (protocol: Server['protocol'], extra: Record<string, unknown> = {}, network: Server['transport']['network'] = 'tcp'): Server => sampleServer(protocol, network, extra as Partial<Server>);

type Expected = 'main' | ['carried', string] | ['unsupported', string];

describe('chooseCarrier', () => {
  it.each<[string, Server, Server | undefined, typeof xray, typeof singBox[], Expected]>([
    ['what Xray runs stays on Xray, even where sing-box could carry it', s('vless', { security: reality, flow: 'xtls-rprx-vision' }), undefined, xray, [singBox], 'main'],
    ['Hysteria2 runs on Xray itself', s('hysteria2'), undefined, xray, [singBox], 'main'],
    ['TUIC is carried by sing-box, saying why Xray cannot', s('tuic'), undefined, xray, [singBox], ['carried', 'carried by sing-box 1.14.1: not supported by Xray 26.3.27: TUIC needs sing-box (no v2ray or Xray version has TUIC)']],
    ['AnyTLS is carried by sing-box', s('anytls'), undefined, xray, [singBox], ['carried', 'carried by sing-box 1.14.1: not supported by Xray 26.3.27: AnyTLS needs sing-box ≥ 1.12']],
    ['ShadowTLS is carried by sing-box', s('shadowsocks', { plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=p;version=3' } }), undefined, xray, [singBox], ['carried', 'carried by sing-box 1.14.1: not supported by Xray 26.3.27: the shadowsocks plugin "shadow-tls" is a separate program the core does not run']],
    ['REALITY beside v2ray 4.34 is carried by sing-box', s('vless', { security: reality }), undefined, v2ray, [singBox], ['carried', 'carried by sing-box 1.14.1: not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0']],
    ['a chain whose hop only sing-box has is carried whole', s('vmess', { security: tls }, 'ws'), s('tuic'), xray, [singBox], ['carried', 'carried by sing-box 1.14.1: not supported by Xray 26.3.27: its upstream server sample tuic tcp cannot run (TUIC needs sing-box (no v2ray or Xray version has TUIC))']],
    ['without a carrier, what the main core cannot run is unsupported with its reason', s('tuic'), undefined, xray, [], ['unsupported', 'not supported by Xray 26.3.27: TUIC needs sing-box (no v2ray or Xray version has TUIC)']],
    [
      'what neither runs is unsupported with both reasons',
      s('naive'),
      undefined,
      xray,
      [singBox],
      ['unsupported', 'not supported by Xray 26.3.27: NaiveProxy needs sing-box ≥ 1.13 built with NaiveProxy; not supported by sing-box 1.14.1: NaiveProxy is not in this build (it was built without with_naive_outbound)'],
    ],
    ['XHTTP is Xray’s: sing-box cannot take it over from v2ray', s('vless', {}, 'xhttp'), undefined, v2ray, [singBox], ['unsupported', 'not supported by v2ray 4.34.0: XHTTP needs Xray ≥ 1.8.16; not supported by sing-box 1.14.1: XHTTP is not available in sing-box']],
  ])('%s', (_name, server, via, main, carriers, expected) => {
    const choice = chooseCarrier(server, via, main, carriers);
    if (expected === 'main') expect(choice).toEqual({ kind: 'main', core: main });
    else if (expected[0] === 'carried') expect(choice).toMatchObject({ kind: 'carried', core: carriers[0], note: expected[1] });
    else expect(choice).toEqual({ kind: 'unsupported', reason: expected[1] });
  });
});
