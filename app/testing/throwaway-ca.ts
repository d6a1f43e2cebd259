import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ThrowawayCertificates {
  /** The CA's certificate: what a machine that trusts it is given (NODE_EXTRA_CA_CERTS). */
  caPem: string;
  /** The host's key and certificate for 127.0.0.1, signed by the CA. */
  keyPem: string;
  certPem: string;
}

/**
 * A CA made for one test, and a host certificate for 127.0.0.1 signed by it, written into `dir`
 * with openssl: HTTPS as public hosts serve it, for a machine that trusts that CA only.
 */
export function makeThrowawayCertificates(dir: string): ThrowawayCertificates {
  const file = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('ca-key.pem'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=Lab test CA');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('key.pem'), '-out', file('req.pem'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', file('req.pem'), '-CA', file('ca.pem'), '-CAkey', file('ca-key.pem'), '-CAcreateserial', '-out', file('cert.pem'), '-days', '2', '-extfile', file('ext.cnf'));
  return { caPem: file('ca.pem'), keyPem: file('key.pem'), certPem: file('cert.pem') };
}
