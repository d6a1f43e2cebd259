/**
 * `npm run cli -- parse <file|url|-> [--redact]`: reads a subscription from a file, a URL or
 * standard input and prints `{format, servers, rejected, notes}` as JSON (plus `usage` and
 * `title` for a URL); a URL is asked for through the app's own fetcher (app-fetcher.ts: its
 * User-Agent and device headers). Servers are printed as parsed — it is the user's own data on
 * their own terminal — unless `--redact` masks their credentials. Exit 0 when the input could be read
 * (whatever it held), 1 with a sentence when it could not, 2 on a usage error.
 */
import { readFile } from 'node:fs/promises';
import type { ParsedServer } from '../../../shared/domain/server';
import { Logger, stderrSink } from '../../../app/log/logger';
import { appFetcher } from '../../../app/subscriptions/app-fetcher';
import { parseSubscription } from '../../../app/subscriptions/parse';
import { readOptions, UsageError } from '../../args';
import { cliDataDir } from '../support';

const USAGE = 'usage: npm run cli -- parse <file|url|-> [--redact]';
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export async function run(argv: string[]): Promise<number> {
  let redact: boolean;
  let source: string;
  try {
    const { values, positionals } = readOptions(argv, { redact: { type: 'boolean' } }, USAGE, true);
    if (positionals.length !== 1) throw new UsageError(USAGE);
    redact = values.redact === true;
    source = positionals[0] as string;
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }

  let body: Buffer;
  let extra: Record<string, unknown> = {};
  if (/^https?:\/\//i.test(source)) {
    // Standard output is the JSON: what the fetcher has to say (a device id not saved) goes to stderr.
    const fetcher = await appFetcher({ dataDir: cliDataDir(), logger: new Logger({ level: 'warning', sinks: [stderrSink] }) });
    try {
      const outcome = await fetcher.fetch(source);
      if (!outcome.ok) {
        console.error(`could not fetch the subscription: ${outcome.message}`);
        return 1;
      }
      body = outcome.body;
      extra = { usage: outcome.usage, title: outcome.title };
    } finally {
      await fetcher.close();
    }
  } else {
    try {
      body = source === '-' ? await readStdin() : await readFile(source);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : String((error as Error).message);
      console.error(`could not read ${source}: ${why}`);
      return 1;
    }
    if (body.length > MAX_FILE_BYTES) {
      console.error(`could not read ${source}: larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
      return 1;
    }
  }

  const result = parseSubscription(body);
  const servers = redact ? result.servers.map(redactCredentials) : result.servers;
  const info = result.info ? { info: result.info } : {};
  console.log(JSON.stringify({ format: result.format, servers, rejected: result.rejected, notes: result.notes, ...info, ...extra }, null, 2));
  return 0;
}

const MASK = '<redacted>';

/** The server with every credential field masked (the rest stays as parsed). */
export function redactCredentials(server: ParsedServer): ParsedServer {
  switch (server.protocol) {
    case 'vmess':
    case 'vless':
      return { ...server, uuid: MASK };
    case 'tuic':
      return { ...server, uuid: MASK, password: MASK };
    case 'trojan':
    case 'shadowsocks':
    case 'anytls':
      return { ...server, password: MASK };
    case 'hysteria':
      return { ...server, ...(server.auth ? { auth: MASK } : {}), ...(server.obfs ? { obfs: MASK } : {}) };
    case 'hysteria2':
      return { ...server, password: MASK, ...(server.obfs ? { obfs: { ...server.obfs, password: MASK } } : {}) };
    case 'wireguard':
      return { ...server, privateKey: MASK, ...(server.preSharedKey ? { preSharedKey: MASK } : {}) };
    case 'socks':
    case 'http':
    case 'naive':
      return { ...server, ...(server.username ? { username: MASK } : {}), ...(server.password ? { password: MASK } : {}) };
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
