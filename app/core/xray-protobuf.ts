/**
 * The few protobuf bytes a live group swap needs, read and written by hand: the outbound handler
 * configs out of the core Config that `xray convert pb` writes, and the HandlerService requests
 * that carry one (AddOutboundRequest) or a tag (RemoveOutboundRequest). Xray's own converter
 * turns the JSON into those configs, so the app never builds a proxy's settings message itself;
 * it only lifts the finished ones out and wraps them.
 *
 * core.Config: `repeated OutboundHandlerConfig outbound = 2`; OutboundHandlerConfig:
 * `string tag = 1`; AddOutboundRequest: `OutboundHandlerConfig outbound = 1`;
 * RemoveOutboundRequest: `string tag = 1`.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

interface Field {
  number: number;
  wire: number;
  /** The payload of a length-delimited field. */
  bytes?: Buffer;
}

function readVarint(buffer: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  for (let i = at; i < buffer.length && i < at + 10; i++) {
    const byte = buffer[i]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Error('a truncated protobuf varint');
}

function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < buffer.length) {
    const key = readVarint(buffer, at);
    const number = Math.floor(key.value / 8);
    const wire = key.value % 8;
    at = key.next;
    if (wire === WIRE_VARINT) at = readVarint(buffer, at).next;
    else if (wire === WIRE_FIXED64) at += 8;
    else if (wire === WIRE_FIXED32) at += 4;
    else if (wire === WIRE_LENGTH) {
      const length = readVarint(buffer, at);
      const end = length.next + length.value;
      if (end > buffer.length) throw new Error('a truncated protobuf field');
      fields.push({ number, wire, bytes: buffer.subarray(length.next, end) });
      at = end;
      continue;
    } else throw new Error(`an unknown protobuf wire type ${wire}`);
    if (at > buffer.length) throw new Error('a truncated protobuf field');
    fields.push({ number, wire });
  }
  return fields;
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited field: its key, its length, its bytes. */
export function lengthField(number: number, payload: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + WIRE_LENGTH), varint(payload.length), payload]);
}

/** The outbound handler configs of a core Config, each as its own bytes, by tag. */
export function outboundsOfConfig(config: Buffer): Map<string, Buffer> {
  const outbounds = new Map<string, Buffer>();
  for (const field of fieldsOf(config)) {
    if (field.number !== 2 || !field.bytes) continue;
    const tag = fieldsOf(field.bytes).find((f) => f.number === 1 && f.bytes)?.bytes?.toString('utf8') ?? '';
    outbounds.set(tag, Buffer.from(field.bytes));
  }
  return outbounds;
}

/** HandlerService's AddOutboundRequest for one handler config. */
export const addOutboundRequest = (handlerConfig: Buffer): Buffer => lengthField(1, handlerConfig);

/** HandlerService's RemoveOutboundRequest for one tag. */
export const removeOutboundRequest = (tag: string): Buffer => lengthField(1, Buffer.from(tag, 'utf8'));
