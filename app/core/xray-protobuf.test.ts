import { describe, expect, it } from 'vitest';
import { addOutboundRequest, lengthField, outboundsOfConfig, removeOutboundRequest } from './xray-protobuf';

const text = (s: string) => Buffer.from(s, 'utf8');
/** An OutboundHandlerConfig: its tag (field 1) and a proxy-settings TypedMessage (field 3). */
const handler = (tag: string, settings: Buffer) => Buffer.concat([lengthField(1, text(tag)), lengthField(3, settings)]);

describe('the protobuf of a group swap', () => {
  it('lifts every outbound handler config out of a core Config by its tag, whatever else the Config holds', () => {
    // Settings longer than 127 bytes: their length takes a two-byte varint.
    const long = Buffer.alloc(300, 7);
    const group = handler('group:AI', long);
    const dial = handler('group:AI/dial', text('freedom'));
    const config = Buffer.concat([
      lengthField(1, text('an inbound')),
      lengthField(2, group),
      Buffer.from([0x28, 0x96, 0x01]), // field 5, a varint (150)
      Buffer.from([0x31, 1, 2, 3, 4, 5, 6, 7, 8]), // field 6, fixed 64 bits
      lengthField(2, dial),
      lengthField(4, text('an app')),
    ]);
    const outbounds = outboundsOfConfig(config);
    expect([...outbounds.keys()]).toEqual(['group:AI', 'group:AI/dial']);
    expect(outbounds.get('group:AI')).toEqual(group);
    expect(outbounds.get('group:AI/dial')).toEqual(dial);
  });

  it('wraps a handler config as AddOutboundRequest and a tag as RemoveOutboundRequest (field 1 each)', () => {
    const config = handler('group:AI', Buffer.alloc(200, 1));
    const add = addOutboundRequest(config);
    expect([...add.subarray(0, 3)]).toEqual([0x0a, config.length % 128 | 0x80, Math.floor(config.length / 128)]);
    expect(add.subarray(3)).toEqual(config);
    expect(removeOutboundRequest('group:AI/via')).toEqual(Buffer.concat([Buffer.from([0x0a, 12]), text('group:AI/via')]));
  });

  it('refuses a truncated Config rather than hand the core half a handler', () => {
    const whole = lengthField(2, handler('group:AI', text('settings')));
    expect(() => outboundsOfConfig(whole.subarray(0, whole.length - 2))).toThrow(/truncated/);
    expect(() => outboundsOfConfig(Buffer.from([0x12, 0xff]))).toThrow(/truncated/);
    expect(() => outboundsOfConfig(Buffer.from([0x13]))).toThrow(/wire type 3/);
  });
});
