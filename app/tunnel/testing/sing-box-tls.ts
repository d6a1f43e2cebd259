/** Test-only: a self-signed certificate from sing-box itself, for the loopback servers a test starts. */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { labCore } from '../../core/testing/cores';

/** The `tls` block of a sing-box server inbound, its key (0600) and certificate written into `dir`. */
export async function selfSignedServerTls(dir: string, serverName: string): Promise<{ enabled: true; certificate_path: string; key_path: string }> {
  const pem = execFileSync(labCore('sing-box'), ['generate', 'tls-keypair', serverName], { encoding: 'utf8' });
  const [key, cert] = pem.split(/(?=-----BEGIN CERTIFICATE-----)/) as [string, string];
  await writeFile(join(dir, 'key.pem'), key, { mode: 0o600 });
  await writeFile(join(dir, 'cert.pem'), cert);
  return { enabled: true, certificate_path: join(dir, 'cert.pem'), key_path: join(dir, 'key.pem') };
}
