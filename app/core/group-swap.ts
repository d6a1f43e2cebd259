/**
 * A group's outbound swapped in a running Xray, without a restart: the outbounds under the group's
 * tags are removed and the new pick's added under the same tags, through Xray's HandlerService
 * (RemoveOutbound / AddOutbound). Only the group's traffic notices: connections through `proxy`
 * never pass the swapped handlers. Connections already on the old pick keep their handler until
 * they end; a new one in the instant between the two calls is refused (Xray never sends a routed
 * connection by another outbound), never sent through the main server.
 *
 * The JSON of the outbounds is turned into Xray's handler configs by the core's own converter
 * (`xray convert pb`), so the app never builds a proxy's settings message itself; the two calls
 * are then made from this process (xray-protobuf.ts), with no process started between them.
 * Conversions are kept by the JSON they came from: a pick the group returns to is swapped with no
 * process started at all. (Four `xray api` processes per switch, the way before, took 135 ms
 * median and up to 585 ms on this 2-CPU machine, competing with the running core for it, and the
 * main connection's longest gap during a switch grew with them: `npm run bench -- groups`.)
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { addOutboundRequest, outboundsOfConfig, removeOutboundRequest } from './xray-protobuf';

const HANDLER_SERVICE = '/xray.app.proxyman.command.HandlerService';
/** Conversions kept (each a few hundred bytes): more than any group's members. */
const CONVERSIONS_KEPT = 256;

/** Handler configs by the JSON of the outbounds they were converted from, for one core binary. */
export class ConvertedOutbounds {
  private readonly kept = new Map<string, Buffer[]>();

  get(key: string): Buffer[] | undefined {
    const found = this.kept.get(key);
    if (found) {
      // The most recently used last: the oldest goes first when the map is full.
      this.kept.delete(key);
      this.kept.set(key, found);
    }
    return found;
  }

  set(key: string, configs: Buffer[]): void {
    this.kept.set(key, configs);
    if (this.kept.size > CONVERSIONS_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }
}

export interface OutboundSwapOptions {
  /** The running core's binary (Xray). */
  corePath: string;
  /** Its API inbound, "127.0.0.1:PORT" (loopback only). */
  apiAddress: string;
  /** Where the converter's files (they hold credentials) are written, 0600, and removed after. */
  runtimeDir: string;
  timeoutMs?: number;
  /** Conversions made before (kept by the tunnel across switches and restarts of the same core). */
  converted?: ConvertedOutbounds;
}

export class XrayOutboundSwap {
  private readonly converted: ConvertedOutbounds;

  constructor(private readonly options: OutboundSwapOptions) {
    this.converted = options.converted ?? new ConvertedOutbounds();
  }

  /**
   * Puts `outbounds` in place of the handlers tagged `oldTags` (absent ones are no error: a first
   * pick after none, or a front the old pick did not have). Converted first, so nothing is
   * removed when the new outbounds cannot be.
   */
  async replace(oldTags: readonly string[], outbounds: readonly Record<string, unknown>[]): Promise<void> {
    const configs = await this.convert(outbounds);
    const client = new grpc.Client(this.options.apiAddress, grpc.credentials.createInsecure());
    try {
      for (const tag of oldTags) await this.call(client, 'RemoveOutbound', removeOutboundRequest(tag));
      for (const config of configs) await this.call(client, 'AddOutbound', addOutboundRequest(config));
    } finally {
      client.close();
    }
  }

  private async convert(outbounds: readonly Record<string, unknown>[]): Promise<Buffer[]> {
    const key = JSON.stringify(outbounds);
    const known = this.converted.get(key);
    if (known) return known;
    const name = join(this.options.runtimeDir, `group-swap-${randomBytes(6).toString('hex')}`);
    await writeFile(`${name}.json`, JSON.stringify({ outbounds }), { mode: 0o600 });
    try {
      await this.run(['convert', 'pb', '-outpbfile', `${name}.pb`, `${name}.json`]);
      const byTag = outboundsOfConfig(await readFile(`${name}.pb`));
      const configs = outbounds.map((o) => {
        const config = byTag.get(String(o.tag ?? ''));
        if (!config) throw new Error(`xray convert pb gave no outbound tagged "${String(o.tag)}"`);
        return config;
      });
      this.converted.set(key, configs);
      return configs;
    } finally {
      await Promise.all([rm(`${name}.json`, { force: true }), rm(`${name}.pb`, { force: true })]);
    }
  }

  private run(args: string[]): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? 3000;
    return new Promise((resolve, reject) => {
      execFile(this.options.corePath, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
        if (error) reject(new Error(`xray ${args.slice(0, 2).join(' ')} failed: ${(stderr || stdout || error.message).trim().split('\n').slice(-1)[0]}`));
        else resolve();
      });
    });
  }

  private call(client: grpc.Client, method: 'AddOutbound' | 'RemoveOutbound', request: Buffer): Promise<void> {
    const deadline = Date.now() + (this.options.timeoutMs ?? 3000);
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        `${HANDLER_SERVICE}/${method}`,
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        request,
        new grpc.Metadata(),
        { deadline },
        (error) => {
          if (error) reject(new Error(`xray HandlerService ${method} failed: ${error.details || error.message}`));
          else resolve();
        },
      );
    });
  }
}
