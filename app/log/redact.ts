/**
 * Keeps credentials out of everything the app writes outside its 0600 config: UUIDs always, and
 * every password or key the app has been told about (subscriptions register theirs as they load).
 *
 * Thousands of servers mean thousands of secrets, so matching does not build one regex of them:
 * secrets are indexed by their first few characters, and a line is scanned once, looking up each
 * position's prefix (a line costs O(length), whatever the number of secrets).
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]+)(?::([^\s/@]*))?@/gi;
const MIN_SECRET_LENGTH = 4;
const PREFIX = MIN_SECRET_LENGTH;

export class Redactor {
  /** prefix → secrets starting with it, longest first. */
  private byPrefix = new Map<string, string[]>();
  private count = 0;

  /** Registers secrets (passwords, keys) so they are masked wherever they appear. */
  add(...secrets: (string | undefined | null)[]): void {
    for (const secret of secrets) {
      if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
      const key = secret.slice(0, PREFIX);
      const bucket = this.byPrefix.get(key);
      if (!bucket) {
        this.byPrefix.set(key, [secret]);
      } else if (!bucket.includes(secret)) {
        bucket.push(secret);
        bucket.sort((a, b) => b.length - a.length);
      } else {
        continue;
      }
      this.count++;
    }
  }

  /** How many secrets are registered. */
  size(): number {
    return this.count;
  }

  apply(text: string): string {
    const masked = this.count === 0 ? text : this.maskSecrets(text);
    return masked.replace(UUID, '<uuid>').replace(URL_USERINFO, (_m, scheme: string) => `${scheme}<credentials>@`);
  }

  private maskSecrets(text: string): string {
    let out = '';
    let copiedUpTo = 0;
    let i = 0;
    while (i <= text.length - PREFIX) {
      const bucket = this.byPrefix.get(text.slice(i, i + PREFIX));
      const hit = bucket?.find((secret) => text.startsWith(secret, i));
      if (hit) {
        out += `${text.slice(copiedUpTo, i)}<secret>`;
        i += hit.length;
        copiedUpTo = i;
      } else {
        i++;
      }
    }
    return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
  }
}
