/**
 * Keeps credentials out of everything the app writes outside its 0600 config: UUIDs always, and
 * every password or key the app has been told about (subscriptions register theirs as they load).
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]+)(?::([^\s/@]*))?@/gi;
const MIN_SECRET_LENGTH = 4;

export class Redactor {
  private secrets = new Set<string>();
  private pattern: RegExp | null = null;

  /** Registers secrets (passwords, keys) so they are masked wherever they appear. */
  add(...secrets: (string | undefined | null)[]): void {
    let changed = false;
    for (const secret of secrets) {
      if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) continue;
      this.secrets.add(secret);
      changed = true;
    }
    if (changed) this.pattern = null;
  }

  apply(text: string): string {
    let out = text.replace(UUID, '<uuid>').replace(URL_USERINFO, (_m, scheme: string) => `${scheme}<credentials>@`);
    const pattern = this.compiled();
    if (pattern) out = out.replace(pattern, '<secret>');
    return out;
  }

  private compiled(): RegExp | null {
    if (this.secrets.size === 0) return null;
    if (!this.pattern) {
      // Longest first so a secret that contains another is masked whole.
      const sorted = [...this.secrets].sort((a, b) => b.length - a.length);
      this.pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
    }
    return this.pattern;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
