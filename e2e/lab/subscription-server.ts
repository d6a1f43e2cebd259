/**
 * The subscription server: `GET /sub/:id` serves a subscription's servers in the format asked for
 * (base64 by default; `?format=plain|json|clash`), with the headers providers send. The control
 * API can change the list or make it misbehave (garbage, empty, hang, huge).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatedHttpServer } from './gated-http';
import type { LabNetwork } from './network';
import { randomInt, seeded } from '../../app/testing/random';
import { type ServedServer, type SubscriptionFormat, base64Links, renderSubscription, unservableFormat } from './subscription-formats';
import type { SubscriptionSpec } from './world';

/** `blocked-here`: the provider is blocked on the user's network (its connections are reset) but answers anyone coming through a lab server. */
export const SUBSCRIPTION_MODES = ['ok', 'garbage', 'empty', 'hang', 'huge', 'blocked-here'] as const;
export type SubscriptionMode = (typeof SUBSCRIPTION_MODES)[number];
/** The user's own address in the lab: server exits are 127.0.0.11 and up (world.ts). */
const USER_ADDRESS = '127.0.0.1';
export const HUGE_BYTES = 50 * 1024 * 1024;
const FORMATS: readonly SubscriptionFormat[] = ['base64', 'plain', 'json', 'clash'];

interface SubscriptionState {
  id: string;
  title: string;
  serverIds: string[];
  mode: SubscriptionMode;
  requests: number;
}

export interface SubscriptionView {
  id: string;
  title: string;
  mode: SubscriptionMode;
  servers: string[];
}

export class SubscriptionServer {
  private readonly server: GatedHttpServer;
  private readonly subs = new Map<string, SubscriptionState>();

  constructor(
    subscriptions: SubscriptionSpec[],
    private readonly serve: (id: string) => ServedServer | undefined,
    network: LabNetwork,
    private readonly seed: number,
  ) {
    for (const s of subscriptions) this.subs.set(s.id, { id: s.id, title: s.title, serverIds: [...s.serverIds], mode: 'ok', requests: 0 });
    this.server = new GatedHttpServer((req, res, source) => this.handle(req, res, source), network);
  }

  url(id: string): string {
    return `http://${this.server.address}/sub/${id}`;
  }

  has(id: string): boolean {
    return this.subs.has(id);
  }

  view(): SubscriptionView[] {
    return [...this.subs.values()].map((s) => ({ id: s.id, title: s.title, mode: s.mode, servers: [...s.serverIds] }));
  }

  requests(): Record<string, number> {
    return Object.fromEntries([...this.subs.values()].map((s) => [s.id, s.requests]));
  }

  setServers(id: string, serverIds: string[]): void {
    const sub = this.subs.get(id);
    if (!sub) throw new Error(`unknown subscription "${id}"`);
    const unknown = serverIds.filter((s) => !this.serve(s));
    if (unknown.length > 0) throw new Error(`unknown server ids: ${unknown.join(', ')}`);
    sub.serverIds = [...serverIds];
  }

  setMode(id: string, mode: SubscriptionMode): void {
    const sub = this.subs.get(id);
    if (!sub) throw new Error(`unknown subscription "${id}"`);
    sub.mode = mode;
  }

  start(): Promise<void> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private handle(req: IncomingMessage, res: ServerResponse, source: string): void {
    const url = new URL(req.url ?? '/', 'http://subscriptions.invalid');
    const match = /^\/sub\/([^/]+)$/.exec(url.pathname);
    const sub = match ? this.subs.get(decodeURIComponent(match[1] as string)) : undefined;
    if (!sub) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such subscription\n');
      return;
    }
    if (sub.mode === 'blocked-here' && source === USER_ADDRESS) {
      // What a censor does to a blocked provider: the connection is reset, nothing is served.
      req.socket.resetAndDestroy();
      return;
    }
    sub.requests += 1;
    const format = (url.searchParams.get('format') ?? 'base64') as SubscriptionFormat;
    if (!FORMATS.includes(format)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`format must be one of ${FORMATS.join(', ')}\n`);
      return;
    }
    const served = sub.serverIds.map((id) => this.serve(id)).filter((s): s is ServedServer => s !== undefined);
    const unservable = unservableFormat(format, served);
    if (unservable) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(unservable);
      return;
    }
    switch (sub.mode) {
      case 'hang':
        return; // accept, never answer
      case 'empty':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '0' }).end();
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(this.garbage(sub));
        return;
      case 'huge':
        this.huge(res, served);
        return;
      case 'ok':
      case 'blocked-here': {
        const { body, contentType } = renderSubscription(format, served);
        res.writeHead(200, { 'content-type': contentType, ...this.providerHeaders(sub) }).end(body);
        return;
      }
    }
  }

  /** What providers send beside the body: traffic use and expiry, a title, an update interval. */
  private providerHeaders(sub: SubscriptionState): Record<string, string> {
    const random = seeded(this.seed, 'userinfo', sub.id);
    const gib = 1024 ** 3;
    const upload = randomInt(random, 1, 5000) * 1024 ** 2;
    const download = randomInt(random, 1, 80) * gib;
    const total = 100 * gib;
    const expire = 1_893_456_000 + randomInt(random, 0, 365) * 86_400; // some day in 2030
    return {
      'subscription-userinfo': `upload=${upload}; download=${download}; total=${total}; expire=${expire}`,
      'profile-title': `base64:${Buffer.from(sub.title, 'utf8').toString('base64')}`,
      'profile-update-interval': '12',
      'content-disposition': `attachment; filename="lab-${sub.id.toLowerCase()}.txt"`,
    };
  }

  /** Not a subscription: a captive-portal page, binary noise and a broken link. */
  private garbage(sub: SubscriptionState): Buffer {
    const random = seeded(this.seed, 'garbage', sub.id, sub.requests);
    const noise = Buffer.alloc(2048);
    for (let i = 0; i < noise.length; i += 1) noise[i] = Math.floor(random() * 256);
    return Buffer.concat([
      Buffer.from('<html><head><title>Access denied</title></head><body>این سایت مسدود شده است</body></html>\n'),
      noise,
      Buffer.from('\nvmess://not-base64-%%%\n'),
    ]);
  }

  /** 50 MB of valid-looking base64, streamed without a length, for size limits to catch. */
  private huge(res: ServerResponse, served: ServedServer[]): void {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    // A multiple of 3 bytes of plain text base64-encodes to a block that concatenates cleanly.
    let block = Buffer.from(base64Links(served.length > 0 ? served : []), 'base64');
    if (block.length === 0) block = Buffer.from('vless://00000000-0000-4000-8000-000000000000@127.0.0.1:1?type=tcp#padding\n');
    while (block.length < 48 * 1024) block = Buffer.concat([block, block]);
    const chunk = Buffer.from(block.subarray(0, block.length - (block.length % 3)).toString('base64'));
    let left = HUGE_BYTES;
    const pump = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.once('close', () => {
      left = 0;
    });
    pump();
  }
}
