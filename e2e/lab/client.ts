/**
 * A small v2ray client for the lab's own four protocols, independent of the product's config
 * generator: one local HTTP proxy inbound per route, each routed to an outbound for one lab server
 * (optionally chained through another route's outbound with `proxySettings`). The selftest and
 * the integration tests use it to measure faults through a real core.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnSupervised, stopSupervised } from '../../app/process/supervised';
import { freePorts } from '../../app/tunnel/ports';
import type { Dial } from './share-links';
import { TLS_SERVER_NAME, WS_HOST, type ServerSpec } from './world';

export interface ClientRoute {
  /** Names the inbound and the outbound. */
  tag: string;
  server: ServerSpec;
  dial: Dial;
  /** Another route's tag: reach this server through that one (its exit address dials our relay). */
  via?: string;
}

function outboundSettings(server: ServerSpec, dial: Dial): Record<string, unknown> {
  const address = dial.host;
  const port = dial.port;
  switch (server.protocol) {
    case 'vmess':
      return { vnext: [{ address, port, users: [{ id: server.uuid, alterId: 0, security: 'auto' }] }] };
    case 'vless':
      return { vnext: [{ address, port, users: [{ id: server.uuid, encryption: 'none' }] }] };
    case 'trojan':
      return { servers: [{ address, port, password: server.password }] };
    case 'shadowsocks':
      return { servers: [{ address, port, method: server.ssMethod, password: server.password }] };
  }
}

function streamSettings(server: ServerSpec): Record<string, unknown> | undefined {
  if (server.network === 'tcp' && server.security === 'none') return undefined;
  const settings: Record<string, unknown> = { network: server.network, security: server.security };
  if (server.network === 'ws') settings.wsSettings = { path: server.wsPath, headers: { Host: WS_HOST } };
  if (server.security === 'tls') settings.tlsSettings = { serverName: TLS_SERVER_NAME, allowInsecure: true };
  return settings;
}

export function clientConfig(routes: ClientRoute[], ports: number[]): Record<string, unknown> {
  return {
    log: { loglevel: 'warning', access: 'none' },
    inbounds: routes.map((r, i) => ({ tag: `http-${r.tag}`, listen: '127.0.0.1', port: ports[i], protocol: 'http', settings: {} })),
    outbounds: [
      { tag: 'unrouted', protocol: 'blackhole' },
      ...routes.map((r) => ({
        tag: r.tag,
        protocol: r.server.protocol,
        settings: outboundSettings(r.server, r.dial),
        streamSettings: streamSettings(r.server),
        ...(r.via ? { proxySettings: { tag: r.via } } : {}),
      })),
    ],
    routing: { rules: routes.map((r) => ({ type: 'field', inboundTag: [`http-${r.tag}`], outboundTag: r.tag })) },
  };
}

export interface LabClient {
  /** Local HTTP proxy port per route tag. */
  proxies: Record<string, number>;
  stop(): Promise<void>;
}

export async function startClient(routes: ClientRoute[], v2rayPath = 'v2ray'): Promise<LabClient> {
  const dir = await mkdtemp(join(tmpdir(), 'steadfast-lab-client-'));
  const ports = await freePorts(routes.length);
  const file = join(dir, 'client.json');
  await writeFile(file, JSON.stringify(clientConfig(routes, ports)), { mode: 0o600 });
  const child = spawnSupervised(v2rayPath, ['-config', file]);
  try {
    await waitForStart(child);
    await rm(dir, { recursive: true, force: true }); // read at start; nothing left behind if we are killed
  } catch (error) {
    await stopSupervised(child);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    proxies: Object.fromEntries(routes.map((r, i) => [r.tag, ports[i] as number])),
    stop: () => stopSupervised(child),
  };
}

function waitForStart(child: ChildProcess, timeoutMs = 8000): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => done(new Error(`v2ray client did not start within ${timeoutMs} ms: ${output.trim()}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
      if (/V2Ray [\d.]+ started/.test(output)) done();
    };
    const onExit = () => done(new Error(`v2ray client exited while starting: ${output.trim()}`));
    function done(error?: Error) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.stdout?.resume();
      child.stderr?.resume();
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

export interface FetchResult {
  ok: boolean;
  status: number | null;
  body: Buffer;
  /** From sending the request to the last byte (or the failure). */
  ms: number;
  /** ms to the response headers, when there were any. */
  headersMs: number | null;
  headers: Record<string, string | string[] | undefined>;
  error: string | null;
}

/**
 * GET `url` through the HTTP proxy on 127.0.0.1:`proxyPort` (or directly when proxyPort is null),
 * on a fresh connection, with a hard deadline.
 */
export function fetchVia(proxyPort: number | null, url: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<FetchResult> {
  const target = new URL(url);
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status: number | null = null;
    let headersMs: number | null = null;
    let responseHeaders: Record<string, string | string[] | undefined> = {};
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      const body = Buffer.concat(chunks);
      resolve({ ok: error === null && status !== null && status < 400, status, body, ms: performance.now() - started, headersMs, headers: responseHeaders, error });
    };
    const req = request({
      host: proxyPort === null ? target.hostname.replace(/^\[|\]$/g, '') : '127.0.0.1', // URL keeps an IPv6 host in brackets
      port: proxyPort ?? Number(target.port || 80),
      path: proxyPort === null ? `${target.pathname}${target.search}` : url,
      method: 'GET',
      agent: false,
      headers: { connection: 'close', host: target.host, 'user-agent': 'steadfast-lab/1', ...headers },
    });
    const timer = setTimeout(() => finish(`timeout after ${timeoutMs} ms`), timeoutMs);
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      headersMs = performance.now() - started;
      responseHeaders = res.headers;
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => finish(null));
      res.on('error', (e) => finish(e.message));
      res.on('aborted', () => finish('response aborted'));
    });
    req.on('error', (e) => finish(e.message));
    req.end();
  });
}
