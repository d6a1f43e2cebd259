/**
 * The household's username and password for the shared proxies: made once, on first use, and
 * kept in a 0600 file of the data folder (`sharing-credentials.json`) so a phone or a TV set up
 * once keeps working. They are never logged (the tunnel hands the password to the log's redactor).
 *
 * Synchronous on purpose: the first use is a settings change, which the engine applies at once;
 * the file is a few dozen bytes, written once.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { SharingCredentials } from '../../shared/sharing';

export const SHARING_CREDENTIALS_FILE = 'sharing-credentials.json';

// Letters and digits only: the pair goes into proxy URLs, QR codes and TV remote keyboards unescaped.
const credentialsSchema = z.object({ version: z.literal(1), username: z.string().regex(/^[A-Za-z0-9]{4,64}$/), password: z.string().regex(/^[A-Za-z0-9]{16,128}$/) }).strict();

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** `length` characters of ALPHABET (no 0/O, 1/l/I to misread), without modulo bias. */
export function randomWord(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 256 - (256 % ALPHABET.length) && out.length < length) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

export class SharingCredentialsFile {
  private cached: SharingCredentials | null = null;
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, SHARING_CREDENTIALS_FILE);
  }

  /** The stored pair; on first use a new one is made and stored. An unreadable file is set aside, not overwritten. */
  get(): SharingCredentials {
    if (this.cached) return this.cached;
    const stored = this.read();
    this.cached = stored ?? this.create();
    return this.cached;
  }

  private read(): SharingCredentials | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let parsed: ReturnType<typeof credentialsSchema.safeParse>;
    try {
      parsed = credentialsSchema.safeParse(JSON.parse(text));
    } catch {
      parsed = credentialsSchema.safeParse(null);
    }
    if (!parsed.success) {
      renameSync(this.path, `${this.path}.unreadable-${Date.now()}`);
      return null;
    }
    // Someone widened it: it holds a password.
    if ((statSync(this.path).mode & 0o077) !== 0) chmodSync(this.path, 0o600);
    return { username: parsed.data.username, password: parsed.data.password };
  }

  private create(): SharingCredentials {
    const credentials = { username: `home${randomWord(6)}`, password: randomWord(20) };
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    writeFileSync(this.path, `${JSON.stringify({ version: 1, ...credentials })}\n`, { mode: 0o600, flag: 'wx' });
    return credentials;
  }
}
