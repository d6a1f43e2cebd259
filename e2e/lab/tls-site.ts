/**
 * The lab's own TLS web site on loopback: the handshake partner REALITY borrows (`target`) and
 * ShadowTLS v3 hands its handshake to. A REALITY server must point at a real TLS 1.3 site, and
 * in the lab that site is this one, never a site on the internet. It also makes the certificate
 * the Xray- and sing-box-hosted TLS servers present, and gives its pin (SHA-256 of the whole
 * certificate, as panels write `pcs=`), because Xray ≥ 26.2.6 verifies certificates.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:tls';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REALITY_SERVER_NAME, SHADOWTLS_SERVER_NAME } from './modern-world';
import { TLS_SERVER_NAME, WS_HOST } from './world';

const execFileAsync = promisify(execFile);

export interface LabCertificate {
  certificateFile: string;
  keyFile: string;
  /** Lower-case hex SHA-256 of the certificate (DER): what a share link's `pcs` carries. */
  sha256: string;
}

/** A throwaway self-signed certificate for every name the modern servers and the site answer for. */
export async function makeModernCertificate(dir: string): Promise<LabCertificate> {
  const certificateFile = join(dir, 'modern-cert.pem');
  const keyFile = join(dir, 'modern-key.pem');
  const names = [TLS_SERVER_NAME, WS_HOST, REALITY_SERVER_NAME, SHADOWTLS_SERVER_NAME].map((n) => `DNS:${n}`).join(',');
  await execFileAsync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certificateFile, '-days', '30',
    '-subj', `/CN=${TLS_SERVER_NAME}`, '-addext', `subjectAltName=${names}`,
  ]);
  const sha256 = new X509Certificate(await readFile(certificateFile)).fingerprint256.replace(/:/g, '').toLowerCase();
  return { certificateFile, keyFile, sha256 };
}

export interface TlsSite {
  /** "127.0.0.1:PORT" */
  address: string;
  port: number;
  /** TLS handshakes completed (REALITY probes and ShadowTLS handshakes land here). */
  readonly handshakes: number;
  stop(): Promise<void>;
}

/** A TLS 1.3 site answering every request with a small page; read the certificate before it is removed. */
export async function startTlsSite(cert: LabCertificate): Promise<TlsSite> {
  const [certPem, keyPem] = await Promise.all([readFile(cert.certificateFile), readFile(cert.keyFile)]);
  let handshakes = 0;
  const server: Server = createServer({ cert: certPem, key: keyPem, minVersion: 'TLSv1.3', ALPNProtocols: ['h2', 'http/1.1'] }, (socket) => {
    handshakes += 1;
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 27\r\nconnection: close\r\n\r\n<h1>lab.test web site</h1>\n'));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    get handshakes() {
      return handshakes;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
