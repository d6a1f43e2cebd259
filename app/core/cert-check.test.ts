import { describe, expect, it } from 'vitest';
import type { Security, Server } from '../../shared/domain/server';
import { certificateCheck, certificateNotApplied } from './cert-check';
import { UnsupportedServerError } from './errors';
import { outboundFor } from './outbound';
import { sampleServer } from './samples';
import { unsupportedReason } from './support';
import { profileFromTable } from './testing/profile';

const PIN = '54807151bd83523fee9081f08d708aecb59a3f3e75f154d7e96d35f51149ff8e';
const PIN_2 = '5870bf1355c3b4ef09ad3daf8e1efe58cc01b4ec8141febe6f408e40339f17b8';

// The cores as the table describes them: v2ray (no pin, allowInsecure), Xray before the pin, with
// the pin but no name, with both and still allowInsecure, and with both but no allowInsecure.
const CORES = {
  v2ray434: profileFromTable('v2ray', '4.34.0'),
  v2ray5: profileFromTable('v2ray', '5.16.1'),
  xray26_1_13: profileFromTable('xray', '26.1.13'),
  xray26_1_18: profileFromTable('xray', '26.1.18'),
  xray26_1_31: profileFromTable('xray', '26.1.31'),
  xray26_2_6: profileFromTable('xray', '26.2.6'),
};
type CoreName = keyof typeof CORES;

const tls = (extra: Partial<Security>): Security => ({ type: 'tls', sni: 'sub.domain.net', ...extra });
const pinned = tls({ pinnedCertSha256: [PIN, PIN_2] });
const pinnedInsecure = tls({ pinnedCertSha256: [PIN], allowInsecure: true });
const named = tls({ verifyName: 'test.dom.com' });
const pinnedNamed = tls({ pinnedCertSha256: [PIN], verifyName: 'test.dom.com' });
const insecure = tls({ allowInsecure: true });
const namedInsecure = tls({ verifyName: 'test.dom.com', allowInsecure: true });

/** [what the entry asks, core, tlsSettings fields, log note (null: none), unsupported (null: runs)] */
const RULES: [string, Security, CoreName, Record<string, unknown>, RegExp | null, RegExp | null][] = [
  ['pins, on a core that pins: all of them, `,` between', pinned, 'xray26_1_18', { pinnedPeerCertSha256: `${PIN},${PIN_2}` }, null, null],
  ['pins on the newest Xray, which has no allowInsecure', pinned, 'xray26_2_6', { pinnedPeerCertSha256: `${PIN},${PIN_2}` }, null, null],
  ['pin and allowInsecure, on a core that pins: the pin only (allowInsecure would weaken it)', pinnedInsecure, 'xray26_1_31', { pinnedPeerCertSha256: PIN }, null, null],
  ['pin only, on v2ray 4.34 (cannot pin): unsupported, never silently unverified', pinned, 'v2ray434', {}, null, /pins its certificate \(pcs\) and this core cannot check a pin \(Xray ≥ 26\.1\.18 can\)/],
  ['pin only, on v2ray 5', pinned, 'v2ray5', {}, null, /cannot check a pin/],
  ['pin only, on Xray before 26.1.18', pinned, 'xray26_1_13', {}, null, /cannot check a pin/],
  ['pin and allowInsecure on v2ray 4.34: unverified, as the link allows, and the log says the pin is not applied', pinnedInsecure, 'v2ray434', { allowInsecure: true }, /certificate pin \(pcs\) is not applied .*not verified, as the link allows/, null],
  ['pin and name, on a core with both', pinnedNamed, 'xray26_1_31', { pinnedPeerCertSha256: PIN, verifyPeerCertByName: 'test.dom.com' }, null, null],
  ['pin and name, on a core with the pin only: the pin is checked, the log names the name left out', pinnedNamed, 'xray26_1_18', { pinnedPeerCertSha256: PIN }, /vcn test\.dom\.com\) is not applied \(it needs Xray ≥ 26\.1\.31\): the pin is checked without it/, null],
  ['a name only, on a core with it', named, 'xray26_2_6', { verifyPeerCertByName: 'test.dom.com' }, null, null],
  ['a name only, on v2ray: verified against the server name instead (as strict), said in the log', named, 'v2ray434', {}, /verified against the server name instead/, null],
  ['a name and allowInsecure, on a core with the name: the name only', namedInsecure, 'xray26_1_31', { verifyPeerCertByName: 'test.dom.com' }, null, null],
  ['a name and allowInsecure, on v2ray: unverified as the link allows, nothing to say about the name', namedInsecure, 'v2ray434', { allowInsecure: true }, null, null],
  ['allowInsecure alone, on v2ray: as before', insecure, 'v2ray434', { allowInsecure: true }, null, null],
  ['allowInsecure alone, on Xray 26.2.6: verified (Xray refuses the field)', insecure, 'xray26_2_6', {}, null, null],
  ['nothing asked: nothing written', tls({}), 'xray26_2_6', {}, null, null],
];

describe('certificateCheck: how the core checks the certificate', () => {
  it.each(RULES)('%s', (_title, security, core, fields, note, unsupported) => {
    const check = certificateCheck(security, CORES[core].capabilities.features);
    expect(check.fields).toEqual(fields);
    if (note) expect(check.notApplied).toMatch(note);
    else expect(check.notApplied).toBeNull();
    if (unsupported) expect(check.unsupported).toMatch(unsupported);
    else expect(check.unsupported).toBeNull();
  });
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const vless = (security: Security): Server => sampleServer('vless', 'xhttp', { address: 'sub.domain.net', transport: { network: 'xhttp', path: '/new', host: 'sub.domain.net', mode: 'packet-up' }, security });
const hysteria2 = (security: Security): Server => sampleServer('hysteria2', 'tcp', { security } as Partial<Server>);

describe('the generated outbound', () => {
  it('Xray 26.2.6: the pinned XHTTP server gets pinnedPeerCertSha256 and verifyPeerCertByName, no allowInsecure', () => {
    const outbound = outboundFor(vless(tls({ pinnedCertSha256: [PIN], verifyName: 'test.dom.com', allowInsecure: true })), CORES.xray26_2_6, 'proxy') as Json;
    expect(outbound.streamSettings.tlsSettings).toEqual({ serverName: 'sub.domain.net', pinnedPeerCertSha256: PIN, verifyPeerCertByName: 'test.dom.com' });
  });

  it("a link's ECH config list reaches Xray's tlsSettings as echConfigList; v2ray, which has no ECH, gets none", () => {
    const ech = 'AEz+DQBIAAAgACCrViCgiqG5CDnng32rNVP/N/AHtbqAaGCshOV24QXjMQAMAAEAAQABAAIAAQADABFkZWNveS5leGFtcGxlLmNvbQAA';
    const onXray = outboundFor(vless(tls({ ech })), CORES.xray26_2_6, 'proxy') as Json;
    expect(onXray.streamSettings.tlsSettings).toEqual({ serverName: 'sub.domain.net', echConfigList: ech });
    const onV2ray = outboundFor(sampleServer('trojan', 'tcp', { security: tls({ ech }) }), CORES.v2ray434, 'proxy') as Json;
    expect(onV2ray.streamSettings.tlsSettings).toEqual({ serverName: 'sub.domain.net' });
  });

  it("Xray's Hysteria2 transport takes the same fields", () => {
    const outbound = outboundFor(hysteria2(tls({ pinnedCertSha256: [PIN, PIN_2] })), CORES.xray26_2_6, 'proxy') as Json;
    expect(outbound.streamSettings.tlsSettings).toEqual({ serverName: 'sub.domain.net', alpn: ['h3'], pinnedPeerCertSha256: `${PIN},${PIN_2}` });
  });

  it("v2ray 4.34 never gets a link's pin in its chain-hash field, and a pin-only server is refused with the reason", () => {
    const server = sampleServer('trojan', 'tcp', { security: pinned });
    expect(unsupportedReason(server, CORES.v2ray434)).toBe(
      'not supported by v2ray 4.34.0: the server pins its certificate (pcs) and this core cannot check a pin (Xray ≥ 26.1.18 can); connecting without verifying the certificate would be less safe than the link asks',
    );
    expect(() => outboundFor(server, CORES.v2ray434, 'proxy')).toThrow(UnsupportedServerError);
    const allowed = outboundFor(sampleServer('trojan', 'tcp', { security: pinnedInsecure }), CORES.v2ray434, 'proxy') as Json;
    expect(allowed.streamSettings.tlsSettings).toEqual({ serverName: 'sub.domain.net', allowInsecure: true });
    expect(JSON.stringify(allowed)).not.toMatch(/pinned/i);
  });

  it('Hysteria2 on Xray 26.1.13 (before the pin) is refused the same way', () => {
    expect(unsupportedReason(hysteria2(pinned), CORES.xray26_1_13)).toMatch(/^not supported by Xray 26\.1\.13: the server pins its certificate/);
  });

  it('REALITY and plain servers are not touched by the check', () => {
    const reality = sampleServer('vless', 'tcp', { security: { type: 'reality', publicKey: 'k', sni: 'www.speedtest.net' } });
    expect(unsupportedReason(reality, CORES.xray26_2_6)).toBeNull();
    expect(certificateNotApplied(reality, CORES.xray26_2_6)).toBeNull();
  });

  it('certificateNotApplied gives the connection log its line', () => {
    expect(certificateNotApplied(sampleServer('trojan', 'tcp', { security: pinnedInsecure }), CORES.v2ray434)).toMatch(/certificate pin \(pcs\) is not applied/);
    expect(certificateNotApplied(sampleServer('trojan', 'tcp', { security: pinned }), CORES.xray26_1_18)).toBeNull();
  });
});
