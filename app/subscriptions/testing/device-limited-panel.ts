import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The entry a device-limited panel serves a client that sends no device id (Remnawave's answer). */
export const APP_NOT_SUPPORTED_LINK = 'vless://00000000-0000-0000-0000-000000000000@0.0.0.0:1#App%20not%20supported';

/**
 * A panel on 127.0.0.1 that limits devices as Remnawave does: a request without `x-hwid` and
 * `x-device-os` gets the single "App not supported" entry, one with them gets `body`. Keeps the
 * headers of every request it was sent.
 */
export async function startDeviceLimitedPanel(body: string): Promise<{ url: string; requests: IncomingHttpHeaders[]; stop(): Promise<void> }> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    const identified = typeof request.headers['x-hwid'] === 'string' && typeof request.headers['x-device-os'] === 'string';
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(Buffer.from(identified ? body : `${APP_NOT_SUPPORTED_LINK}\n`).toString('base64'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/sub/8f14e45fceea167a`,
    requests,
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
