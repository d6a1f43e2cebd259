/**
 * What a server in the lab sees arrive, for tests that prove what a client core puts on the wire:
 * the chunks each TCP connection's client sent through a relay (sizes and arrival times), the
 * datagrams a UDP listener received, and readers for the two first messages that matter to DPI
 * (a TLS ClientHello split over records, a QUIC Initial). Observation only: nothing here changes
 * what is carried.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Arrival {
  data: Buffer;
  /** performance.now() when it was read. */
  atMs: number;
}

/** Only the start of a connection is kept: the handshake is what is looked at. */
const KEPT_BYTES_PER_CONNECTION = 64 * 1024;

export interface ObservedConnection {
  /** The client's chunks in the order they were read, up to the first 64 KB. */
  chunks: Arrival[];
}

/**
 * Records what clients send through a relay: pass `hook` as the relay's `onClientData`.
 * Connections are listed in the order their first bytes arrived.
 */
export class ClientChunkLog {
  readonly connections: ObservedConnection[] = [];
  private readonly bySocket = new WeakMap<Socket, ObservedConnection & { kept: number }>();

  readonly hook = (client: Socket, chunk: Buffer): void => {
    const atMs = performance.now();
    let connection = this.bySocket.get(client);
    if (!connection) {
      connection = { chunks: [], kept: 0 };
      this.bySocket.set(client, connection);
      this.connections.push(connection);
    }
    if (connection.kept >= KEPT_BYTES_PER_CONNECTION) return;
    connection.kept += chunk.length;
    connection.chunks.push({ data: Buffer.from(chunk), atMs });
  };
}

export interface TlsRecord {
  /** 22 handshake, 23 application data, 21 alert, 20 change cipher spec. */
  type: number;
  /** The record's payload length (without its 5-byte header). */
  length: number;
  payload: Buffer;
  /** When the chunk holding the record's last byte was read. */
  completedAtMs: number;
  /** Index of that chunk. */
  chunk: number;
}

/** The TLS records in a connection's bytes, in order (an incomplete last record is left out). */
export function tlsRecords(chunks: readonly Arrival[]): TlsRecord[] {
  const ends: number[] = [];
  let total = 0;
  for (const chunk of chunks) ends.push((total += chunk.data.length));
  const bytes = Buffer.concat(chunks.map((c) => c.data));
  const records: TlsRecord[] = [];
  let offset = 0;
  while (offset + 5 <= bytes.length) {
    const length = bytes.readUInt16BE(offset + 3);
    const end = offset + 5 + length;
    if (end > bytes.length) break;
    const chunk = ends.findIndex((e) => e >= end);
    records.push({ type: bytes[offset]!, length, payload: bytes.subarray(offset + 5, end), completedAtMs: chunks[chunk]!.atMs, chunk });
    offset = end;
  }
  return records;
}

/**
 * The records that carry the ClientHello (handshake type 1), from the start of the connection to
 * the record that completes it; null when the connection does not start with one.
 */
export function clientHelloRecords(chunks: readonly Arrival[]): { records: TlsRecord[]; hello: Buffer } | null {
  const records: TlsRecord[] = [];
  const parts: Buffer[] = [];
  let have = 0;
  for (const record of tlsRecords(chunks)) {
    if (record.type !== 22) return null;
    records.push(record);
    parts.push(record.payload);
    have += record.length;
    const joined = Buffer.concat(parts);
    if (joined.length >= 4) {
      if (joined[0] !== 1) return null;
      const needed = 4 + joined.readUIntBE(1, 3);
      if (have >= needed) return { records, hello: joined.subarray(0, needed) };
    }
  }
  return null;
}

/** The server name (SNI) a ClientHello handshake message asks for, or null. */
export function clientHelloServerName(hello: Buffer): string | null {
  // type(1) length(3) version(2) random(32) session id, cipher suites, compression methods, extensions
  let offset = 4 + 2 + 32;
  offset += 1 + hello[offset]!;
  offset += 2 + hello.readUInt16BE(offset);
  offset += 1 + hello[offset]!;
  const extensionsEnd = offset + 2 + hello.readUInt16BE(offset);
  offset += 2;
  while (offset + 4 <= extensionsEnd) {
    const type = hello.readUInt16BE(offset);
    const length = hello.readUInt16BE(offset + 2);
    if (type === 0) {
      // server_name list: length(2), then type(1)=0 host_name, length(2), name
      const nameLength = hello.readUInt16BE(offset + 4 + 3);
      return hello.toString('ascii', offset + 4 + 5, offset + 4 + 5 + nameLength);
    }
    offset += 4 + length;
  }
  return null;
}

export interface Datagram {
  data: Buffer;
  atMs: number;
  /** "127.0.0.1:PORT" of the sender. */
  from: string;
}

/** A UDP listener on loopback that answers nothing and records every datagram. */
export class DatagramLog {
  readonly datagrams: Datagram[] = [];
  private socket: UdpSocket | null = null;
  port = 0;

  constructor(private readonly host = '127.0.0.1') {}

  async start(): Promise<this> {
    const socket = createSocket('udp4');
    socket.on('message', (data, remote) => this.datagrams.push({ data, atMs: performance.now(), from: `${remote.address}:${remote.port}` }));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, this.host, () => resolve());
    });
    this.socket = socket;
    this.port = socket.address().port;
    return this;
  }

  /** The datagrams of the first sender (one client socket), in order of arrival. */
  firstFlow(): Datagram[] {
    const first = this.datagrams[0]?.from;
    return first === undefined ? [] : this.datagrams.filter((d) => d.from === first);
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

/**
 * A QUIC version 1 Initial packet (RFC 9000 17.2.2): long header (form and fixed bits set),
 * packet type 0, version 0x00000001. Every QUIC client's first datagram is one.
 */
export function isQuicInitial(datagram: Buffer): boolean {
  if (datagram.length < 5) return false;
  const first = datagram[0]!;
  return (first & 0xc0) === 0xc0 && (first & 0x30) === 0 && datagram.readUInt32BE(1) === 1;
}

/**
 * A UDP relay on loopback in front of a server that records what each client sends before passing
 * it on unchanged (and the server's answers back): the datagrams a QUIC server got, noise first,
 * while the connection still works. One upstream socket per client address.
 */
export class DatagramWatch {
  readonly datagrams: Datagram[] = [];
  private front: UdpSocket | null = null;
  private readonly upstreams = new Map<string, UdpSocket>();
  port = 0;

  constructor(private readonly upstream: { host: string; port: number }) {}

  async start(): Promise<this> {
    const front = createSocket('udp4');
    front.on('message', (data, remote) => {
      const from = `${remote.address}:${remote.port}`;
      this.datagrams.push({ data, atMs: performance.now(), from });
      let up = this.upstreams.get(from);
      if (!up) {
        up = createSocket('udp4');
        up.on('message', (answer) => this.front?.send(answer, remote.port, remote.address));
        up.on('error', () => undefined);
        this.upstreams.set(from, up);
      }
      up.send(data, this.upstream.port, this.upstream.host);
    });
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      front.bind(0, '127.0.0.1', () => resolve());
    });
    this.front = front;
    this.port = front.address().port;
    return this;
  }

  /** The datagrams of the first sender (one client socket), in order of arrival. */
  firstFlow(): Datagram[] {
    const first = this.datagrams[0]?.from;
    return first === undefined ? [] : this.datagrams.filter((d) => d.from === first);
  }

  async stop(): Promise<void> {
    const sockets = [...this.upstreams.values(), ...(this.front ? [this.front] : [])];
    this.front = null;
    this.upstreams.clear();
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
