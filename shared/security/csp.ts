/**
 * The renderer's Content-Security-Policy, declared once: Electron sends it as a header, the
 * headless host too (adding its own WebSocket origin), and the build writes it into the page as a
 * meta tag for file://, where response headers may not apply.
 */
export const CSP_DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
] as const;

/** Production policy: everything from the app's own files, nothing from anywhere else. */
export const CONTENT_SECURITY_POLICY = CSP_DIRECTIVES.join('; ');

/** The policy with extra connect-src sources (the headless host's WebSocket origin). */
export function policyConnectingTo(...origins: string[]): string {
  return CSP_DIRECTIVES.map((d) => (d.startsWith('connect-src') ? [d, ...origins].join(' ') : d)).join('; ');
}

/** The meta tag the build puts in index.html (frame-ancestors is ignored in meta tags by design). */
export function cspMetaTag(): string {
  const content = CSP_DIRECTIVES.filter((d) => !d.startsWith('frame-ancestors')).join('; ');
  return `<meta http-equiv="Content-Security-Policy" content="${content}" />`;
}
