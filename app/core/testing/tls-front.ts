/**
 * A TLS server on loopback for tests of how a client core checks certificates: it presents a
 * chosen certificate, hands what it decrypts to a plain server behind it (a core's trojan inbound
 * without TLS), and records per connection whether the handshake finished and how many
 * application bytes the client sent. A client that refuses the certificate shows as a failed
 * handshake with no application bytes: nothing of the user's traffic left the machine.
 * Also: certificates made with openssl (a self-signed one, or a CA and a leaf it signed).
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';

export interface TlsConnectionRecord {
  /** The handshake completed (the client accepted the certificate). */
  secured: boolean;
  /** Application bytes the client sent after the handshake. */
  appBytes: number;
  /** Why the handshake failed, as the server saw it (the client's alert). */
  error: string | null;
}

export class TlsFront {
  readonly connections: TlsConnectionRecord[] = [];
  private server: Server | null = null;
  port = 0;

  constructor(
    private readonly identity: { cert: string; key: string },
    private readonly upstreamPort: number,
  ) {}

  async start(): Promise<this> {
    const server = createServer({ cert: this.identity.cert, key: this.identity.key }, (socket) => this.forward(socket));
    server.on('tlsClientError', (error) => this.connections.push({ secured: false, appBytes: 0, error: error.message }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private forward(socket: TLSSocket): void {
    const record: TlsConnectionRecord = { secured: true, appBytes: 0, error: null };
    this.connections.push(record);
    const upstream = createConnection({ host: '127.0.0.1', port: this.upstreamPort });
    socket.on('data', (chunk: Buffer) => (record.appBytes += chunk.length));
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  }
}

export interface Certificate {
  cert: string;
  key: string;
  /** SHA-256 of the certificate (DER), lower-case hex: what a link's `pcs` holds. */
  sha256: string;
}

const sha256Of = (pem: string) => new X509Certificate(pem).fingerprint256.replaceAll(':', '').toLowerCase();

function inScratch<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'tls-front-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A self-signed certificate for `name` (its subject and only DNS name). */
export function selfSigned(name: string): Certificate {
  return inScratch((dir) => {
    openssl(dir, ['req', '-x509', ...EC_KEY, '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`]);
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    return { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8'), sha256: sha256Of(cert) };
  });
}

/** A CA and a leaf for `name` signed by it: the server presents the leaf with the CA behind it. */
export function caSigned(caName: string, name: string): { ca: Certificate; leaf: Certificate } {
  return inScratch((dir) => {
    openssl(dir, ['req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${caName}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    openssl(dir, ['req', ...EC_KEY, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${name}`]);
    writeFileSync(join(dir, 'leaf.cnf'), `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    openssl(dir, ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '2', '-extfile', 'leaf.cnf']);
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const leaf = readFileSync(join(dir, 'leaf.pem'), 'utf8');
    return {
      ca: { cert: ca, key: readFileSync(join(dir, 'ca.key'), 'utf8'), sha256: sha256Of(ca) },
      // The chain the server sends: its own certificate, then the CA's.
      leaf: { cert: leaf + ca, key: readFileSync(join(dir, 'leaf.key'), 'utf8'), sha256: sha256Of(leaf) },
    };
  });
}
