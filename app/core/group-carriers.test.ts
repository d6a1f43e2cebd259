import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { groupCarrierTag, groupPickCarrier, groupRouteInCore, onCarriedGroupHop } from './group-carriers';
import { groupDialTag, groupOutboundsOf, groupTag, groupViaTag } from './group-outbounds';
import { sampleServer } from './samples';
import { singBoxCarrierConfig } from './sing-box/config';
import { profileFromTable, SING_BOX_HERE_TAGS } from './testing/profile';
import { tunnelConfig } from './tunnel-config';

const xray = profileFromTable('xray', '26.3.27');
const singBox = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
const named = (protocol: Server['protocol'], id: string, extra: Partial<Server> = {}) => sampleServer(protocol, 'tcp', { id, name: `Server ${id}`, subscriptionId: 's', ...extra });
type Outbound = { tag: string; protocol: string; settings?: { servers?: { address: string; port: number }[] }; streamSettings?: { sockopt?: { dialerProxy?: string } } };

describe('a group whose pick only a carrier runs', () => {
  it.each([
    ['a TUIC pick is carried by sing-box', named('tuic', 't'), [singBox], 'sing-box'],
    ['an AnyTLS pick is carried by sing-box', named('anytls', 'a'), [singBox], 'sing-box'],
    ['a pick Xray runs stays in Xray', named('vless', 'v'), [singBox], null],
    ['without a carrier a TUIC pick is left to Xray, whose config refuses it', named('tuic', 't'), [], null],
  ] as const)('%s', (_name, server, carriers, expected) => {
    expect(groupPickCarrier({ name: 'G', pick: { server } }, xray, carriers)?.family ?? null).toBe(expected);
  });

  it('a group without a pick needs no carrier', () => {
    expect(groupPickCarrier({ name: 'G', pick: null }, xray, [singBox])).toBeNull();
  });

  it('in the main core, a carried pick is a SOCKS5 hop to its carrier on loopback, leaving by the group’s own dialer (its counters)', () => {
    const pick = named('tuic', 't', { via: 'f' });
    const route = groupRouteInCore({ name: 'G', pick: { server: pick, via: named('vless', 'f') } }, 20345);
    // The carrier dials the front itself: the main core sees one hop, under the pick's id and name.
    expect(route.pick).toEqual({ server: expect.objectContaining({ id: 't', name: 'Server t', protocol: 'socks', address: '127.0.0.1', port: 20345 }) });
    const outbounds = groupOutboundsOf(route, xray) as Outbound[];
    expect(outbounds.map((o) => o.tag)).toEqual([groupTag('G'), groupDialTag('G')]);
    expect(outbounds[0]).toMatchObject({ protocol: 'socks', settings: { servers: [{ address: '127.0.0.1', port: 20345 }] }, streamSettings: { sockopt: { dialerProxy: groupDialTag('G') } } });
  });

  it('the tunnel config takes a carried pick once it is the hop (the pick itself Xray refuses)', () => {
    const tuic = named('tuic', 't');
    const base = { server: named('vless', 'main'), core: xray, listen: '127.0.0.1', httpPort: 1081, socksPort: 1080, apiPort: 1085 };
    expect(() => tunnelConfig({ ...base, groups: [{ name: 'G', pick: { server: tuic } }] })).toThrow(/group "G"/);
    const c = tunnelConfig({ ...base, groups: [groupRouteInCore({ name: 'G', pick: { server: tuic } }, 20345)] }) as { outbounds: Outbound[] };
    expect(c.outbounds.find((o) => o.tag === groupTag('G'))?.protocol).toBe('socks');
  });

  it('a pick the main core runs, or no pick, is left as it is', () => {
    const route = { name: 'G', pick: { server: named('vless', 'v') } };
    expect(groupRouteInCore(route, undefined)).toBe(route);
    expect(groupRouteInCore({ name: 'G', pick: null }, 20345)).toEqual({ name: 'G', pick: null });
  });

  it('the group carrier is the main carrier’s config for the pick: its chain whole, on its own port', () => {
    const config = singBoxCarrierConfig({ server: named('tuic', 't', { via: 'f' }), via: named('anytls', 'f'), core: singBox, port: 20345 }) as { inbounds: { listen: string; listen_port: number }[]; outbounds: { tag: string; type: string; detour?: string }[] };
    expect(config.inbounds).toEqual([expect.objectContaining({ listen: '127.0.0.1', listen_port: 20345 })]);
    expect(config.outbounds.map((o) => [o.tag, o.type, o.detour])).toEqual([
      ['proxy', 'tuic', 'proxy-via'],
      ['proxy-via', 'anytls', undefined],
    ]);
  });

  it('a group carrier’s failures are told under the group’s tags, never as the main connection’s proxy', () => {
    expect(groupCarrierTag('G', 'proxy')).toBe(groupTag('G'));
    expect(groupCarrierTag('G', null)).toBe(groupTag('G'));
    expect(groupCarrierTag('G', 'proxy-via')).toBe(groupViaTag('G'));
  });

  it('the main core’s echo of a failure on a carried group’s hop is not reported; other groups’ and the main connection’s are', () => {
    expect(onCarriedGroupHop(groupTag('G'), ['G'])).toBe(true);
    expect(onCarriedGroupHop(groupDialTag('G'), new Set(['G']).keys())).toBe(true);
    expect(onCarriedGroupHop(groupTag('H'), ['G'])).toBe(false);
    expect(onCarriedGroupHop('proxy', ['G'])).toBe(false);
    expect(onCarriedGroupHop(null, ['G'])).toBe(false);
  });
});
