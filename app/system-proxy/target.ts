import { z } from 'zod';
import type { ConnectionState } from '../../shared/domain/connection';

/**
 * Where the operating system's proxy should point: the app's local inbounds. HTTP (and HTTPS) go
 * to the HTTP inbound; the SOCKS inbound is announced too where the OS has a place for it.
 */
export const proxyTargetSchema = z
  .object({
    host: z.string().min(1).max(255),
    httpPort: z.number().int().min(1).max(65535),
    socksPort: z.number().int().min(1).max(65535).nullable(),
  })
  .strict();
export type ProxyTarget = z.infer<typeof proxyTargetSchema>;

/**
 * Addresses that must never go through the proxy: the proxy itself and loopback (a proxy pointed
 * at 127.0.0.1 that also proxies 127.0.0.1 would loop), plus each OS's word for "local names".
 */
export const LOOPBACK_BYPASS = ['localhost', '127.0.0.0/8', '::1'] as const;

/** The target for a connection, or null when it has no local HTTP inbound to point at. */
export function proxyTargetFromConnection(connection: Pick<ConnectionState, 'httpProxy' | 'socksProxy'>): ProxyTarget | null {
  const http = hostAndPort(connection.httpProxy);
  if (!http) return null;
  const socks = hostAndPort(connection.socksProxy);
  return { host: http.host, httpPort: http.port, socksPort: socks && socks.host === http.host ? socks.port : null };
}

function hostAndPort(url: string | null): { host: string; port: number } | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const port = Number(parsed.port);
  if (!parsed.hostname || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  // URL keeps IPv6 literals in brackets; the OS settings want the bare address.
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}
