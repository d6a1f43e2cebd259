/**
 * The headless host: serves the built renderer to a browser and the IPC contract over a
 * WebSocket, on loopback only (unless the caller binds elsewhere on the user's explicit wish).
 *
 * Who may drive the app: only a client that presents this run's random token. Browsers also send
 * an Origin, and a page from any other origin is refused even with a token, so another web page
 * (or a DNS-rebinding trick) cannot steer the VPN. Requests whose Host header is not ours are
 * refused for the same reason.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { refusalToWire } from '../../shared/ipc/answer';
import { EVENT_NAMES, type EventName, type EventPayloads, isInvokeChannel, parseRequest, type VpnClient } from '../../shared/ipc/contract';
import { clientMessageSchema, MAX_CLIENT_MESSAGE_BYTES } from '../../shared/ipc/client-message';
import { eventToWire, type HostMessage, resultToWire, SNAPSHOT_ON_OPEN, SNAPSHOT_ON_OPEN_PARAM, TOKEN_PARAM, WS_PATH } from '../../shared/ipc/wire';
import { policyConnectingTo } from '../../shared/security/csp';
import type { Logger } from '../../app/log/logger';
import { SnapshotPrefetch } from './snapshot-prefetch';
import { StaticFiles } from './static-files';

export interface HeadlessHostOptions {
  service: VpnClient;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  host?: string;
  port?: number;
  /** A fixed token (tests); a random 32-byte one otherwise. */
  token?: string;
  logger?: Logger;
  /** How many bytes of unsent events one window may hold before it is cut off; see broadcast. */
  maxBufferedEventBytes?: number;
}

/**
 * A page that does not read (a hidden tab the browser throttles, a machine under load) would
 * otherwise make the engine queue every status for it without end: 5,000 servers' results grew
 * the engine to Node's 4 GB limit before a slow page had drawn once. 16 MiB is seconds of the
 * busiest stream; a page that far behind is better served by a fresh snapshot.
 */
export const MAX_BUFFERED_EVENT_BYTES = 16 * 1024 * 1024;

export interface HeadlessHost {
  /** The URL to open, token included. */
  url: string;
  origin: string;
  token: string;
  port: number;
  clientCount(): number;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export async function startHeadlessHost(options: HeadlessHostOptions): Promise<HeadlessHost> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const tokenDigest = digest(token);
  const rendererDir = resolve(options.rendererDir);
  const bindHost = options.host ?? '127.0.0.1';
  const logger = options.logger;
  const maxBufferedEventBytes = options.maxBufferedEventBytes ?? MAX_BUFFERED_EVENT_BYTES;

  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, bindHost, () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  const hostName = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  const origin = `http://${hostName}:${port}`;
  const allowedHosts = new Set([`${hostName}:${port}`, `localhost:${port}`]);
  const allowedOrigins = new Set([...allowedHosts].map((h) => `http://${h}`));

  const tokenMatches = (presented: string | null | undefined): boolean =>
    typeof presented === 'string' && presented.length > 0 && timingSafeEqual(digest(presented), tokenDigest);

  const firstFrames = new SnapshotPrefetch(async () => JSON.stringify({ kind: 'event', event: 'snapshot', payload: eventToWire('snapshot', await options.service.getSnapshot({})) }));

  const files = new StaticFiles();
  server.on('request', (req, res) => {
    if (!allowedHosts.has(req.headers.host ?? '')) return refuse(res, 421, 'wrong host');
    // The app's page with this run's token: its window will connect and want the snapshot. It is
    // made once the page is sent: made before, it held the page itself up by as long as it took.
    // A target no URL can be read from prepares nothing (serveStatic answers it).
    const url = URL.canParse(req.url ?? '/', origin) ? new URL(req.url ?? '/', origin) : null;
    if (url && req.method === 'GET' && (url.pathname === '/' || url.pathname === '/index.html') && tokenMatches(url.searchParams.get(TOKEN_PARAM))) {
      res.once('finish', () => firstFrames.prepare());
    }
    try {
      serveStatic(req, res, rendererDir, origin, files);
    } catch {
      refuse(res, 500, 'internal error');
    }
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', origin);
    const why = url.pathname !== WS_PATH
      ? 'not found'
      : !allowedHosts.has(req.headers.host ?? '')
        ? 'wrong host'
        : req.headers.origin !== undefined && !allowedOrigins.has(req.headers.origin)
          ? 'foreign origin'
          : !tokenMatches(url.searchParams.get(TOKEN_PARAM))
            ? 'missing or wrong token'
            : null;
    if (why) {
      logger?.warn('HOST', `refused a WebSocket connection: ${why}${req.headers.origin ? ` (origin ${req.headers.origin})` : ''}`);
      socket.end(`HTTP/1.1 ${why === 'not found' ? '404 Not Found' : '403 Forbidden'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
      return;
    }
    const snapshotOnOpen = url.searchParams.get(SNAPSHOT_ON_OPEN_PARAM) === SNAPSHOT_ON_OPEN;
    wss.handleUpgrade(req, socket, head, (ws) => {
      wss.emit('connection', ws, req);
      if (snapshotOnOpen) void pushSnapshot(firstFrames, ws, logger);
    });
  });

  wss.on('connection', (ws: WebSocket) => {
    // Oversized or malformed frames close the socket; the error needs no more than a log line.
    ws.on('error', (error) => logger?.warn('HOST', `closed a WebSocket client: ${error.message}`));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'text frames only');
      void handleMessage(options.service, ws, String(data));
    });
  });

  const unsubscribers = EVENT_NAMES.map((event) =>
    options.service.on(event, (payload) => {
      firstFrames.eventSent();
      broadcast(wss, event, payload, maxBufferedEventBytes, logger);
    }),
  );

  return {
    url: `${origin}/?${TOKEN_PARAM}=${encodeURIComponent(token)}`,
    origin,
    token,
    port,
    clientCount: () => wss.clients.size,
    async close() {
      for (const unsubscribe of unsubscribers) unsubscribe();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((ok) => wss.close(() => ok()));
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

async function handleMessage(service: VpnClient, ws: WebSocket, text: string): Promise<void> {
  let id = -1;
  try {
    const message = clientMessageSchema.parse(JSON.parse(text));
    id = message.id;
    if (!isInvokeChannel(message.channel)) throw new Error(`unknown channel "${message.channel.slice(0, 64)}"`);
    const request = parseRequest(message.channel, message.payload);
    const handler = service[message.channel] as (r: unknown) => Promise<unknown>;
    const value = await handler.call(service, request);
    send(ws, { kind: 'result', id, ok: true, value: resultToWire(message.channel, value) } as HostMessage);
  } catch (error) {
    if (error instanceof SyntaxError) return send(ws, { kind: 'result', id, ok: false, error: 'the message is not JSON' });
    const refusal = refusalToWire(error);
    // zod's own text (a JSON array of issues) says nothing a user can act on.
    send(ws, { kind: 'result', id, ok: false, ...(refusal.error.startsWith('[') ? { error: 'malformed message' } : refusal) });
  }
}

/**
 * The snapshot as a new window's first frame (see SNAPSHOT_ON_OPEN_PARAM): the one its page's
 * load prepared, or one made now (snapshot-prefetch.ts). Either was made after every event this
 * window has not been sent, so every event after it is newer. A window it cannot be made for is
 * closed, and its client reconnects for another try.
 */
async function pushSnapshot(frames: SnapshotPrefetch, ws: WebSocket, logger: Logger | undefined): Promise<void> {
  try {
    const frame = await frames.take();
    if (ws.readyState === ws.OPEN) ws.send(frame);
  } catch (error) {
    logger?.warn('HOST', `could not make a new window's snapshot: ${error instanceof Error ? error.message : String(error)}`);
    ws.close(1011, 'the snapshot could not be made');
  }
}

/**
 * A window that has fallen more than `maxBuffered` bytes behind is cut off instead of queued for:
 * its client reconnects with back-off and starts again from a fresh snapshot, so it loses no
 * state, and the engine's memory stays bounded whatever the page does.
 */
function broadcast<E extends EventName>(
  wss: WebSocketServer,
  event: E,
  payload: EventPayloads[E],
  maxBuffered: number,
  logger: Logger | undefined,
): void {
  if (wss.clients.size === 0) return;
  const frame = JSON.stringify({ kind: 'event', event, payload: eventToWire(event, payload) });
  for (const client of wss.clients) {
    if (client.readyState !== client.OPEN) continue;
    if (client.bufferedAmount > maxBuffered) {
      logger?.warn('HOST', `cut off a window ${Math.round(client.bufferedAmount / 1024)} KiB of events behind; it reconnects for a fresh snapshot`);
      client.terminate();
      continue;
    }
    client.send(frame);
  }
}

function send(ws: WebSocket, message: HostMessage): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

function serveStatic(req: IncomingMessage, res: ServerResponse, root: string, origin: string, files: StaticFiles): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method not allowed');
  const pathname = decodeURIComponent(new URL(req.url ?? '/', origin).pathname);
  const relative = pathname === '/' ? 'index.html' : normalize(pathname).replace(/^([/\\])+/, '');
  const file = join(root, relative);
  if (file !== root && !file.startsWith(root + sep)) return refuse(res, 403, 'forbidden');
  const found = files.get(file);
  if (!found) {
    return pathname === '/' ? refuse(res, 503, 'the UI is not built: run `npm run build:renderer`') : refuse(res, 404, 'not found');
  }
  const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': found.size,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...(type.startsWith('text/html')
      ? {
          'Content-Security-Policy': policyConnectingTo(origin.replace('http:', 'ws:')),
          'X-Frame-Options': 'DENY',
        }
      : {}),
  });
  if (req.method === 'HEAD') return void res.end();
  if (found.body) return void res.end(found.body);
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
