/**
 * A DNS resolver stand-in on loopback (UDP): answers A queries from a zone function and records
 * every question with the address it came from. The lab's servers resolve the lab's own names
 * (`*.lab.test`) with one; tests play the user's ISP resolver and a public resolver with others,
 * and read who asked what. AAAA and other types get an empty answer (NOERROR, no records).
 */
import { createSocket, type Socket } from 'node:dgram';

export interface DnsQuestion {
  name: string;
  type: number;
  /** The source address of the query (127.0.0.1 = the user's machine, an exit IP = through a server). */
  from: string;
}

/** The A record for a name, null for an empty answer, `silent` to answer nothing at all (a resolver that times out). */
export type Zone = (name: string) => string | null | 'silent';

export const TYPE_A = 1;

export class DnsResolverStandIn {
  readonly questions: DnsQuestion[] = [];
  private socket: Socket | null = null;
  port = 0;

  constructor(
    private readonly zone: Zone,
    private readonly host = '127.0.0.1',
  ) {}

  async start(port = 0): Promise<this> {
    const socket = createSocket('udp4');
    socket.on('message', (message, remote) => {
      const reply = this.answer(message, remote.address);
      if (reply) socket.send(reply, remote.port, remote.address);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, this.host, () => resolve());
    });
    this.socket = socket;
    this.port = socket.address().port;
    return this;
  }

  /** "127.0.0.1:PORT", as a resolver address setting takes it. */
  address(): string {
    return `${this.host}:${this.port}`;
  }

  namesFrom(predicate: (from: string) => boolean = () => true): string[] {
    return [...new Set(this.questions.filter((q) => predicate(q.from)).map((q) => q.name))].sort();
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private answer(query: Buffer, from: string): Buffer | null {
    const question = parseQuestion(query);
    if (!question) return null;
    this.questions.push({ name: question.name, type: question.type, from });
    const found = this.zone(question.name);
    if (found === 'silent') return null;
    const address = question.type === TYPE_A ? found : null;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100), 2); // response, recursion available, RD echoed
    header.writeUInt16BE(1, 4); // one question
    header.writeUInt16BE(address ? 1 : 0, 6);
    const questionBytes = query.subarray(12, question.end);
    if (!address) return Buffer.concat([header, questionBytes]);
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6); // TTL
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    return Buffer.concat([header, questionBytes, record]);
  }
}

function parseQuestion(query: Buffer): { name: string; type: number; end: number } | null {
  if (query.length < 17 || query.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let offset = 12;
  while (offset < query.length) {
    const length = query.readUInt8(offset);
    offset += 1;
    if (length === 0) break;
    if (length > 63 || offset + length > query.length) return null;
    labels.push(query.toString('latin1', offset, offset + length));
    offset += length;
  }
  if (offset + 4 > query.length) return null;
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(offset), end: offset + 4 };
}
