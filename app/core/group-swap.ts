/**
 * A group's outbound swapped in a running Xray, without a restart: the outbounds under the group's
 * tags are removed and the new pick's added under the same tags, through Xray's HandlerService
 * (RemoveOutbound / AddOutbound). The requests are made by the core's own `xray api rmo` / `ado`,
 * which turn the same JSON the config is written in into the protobuf the service takes, so the
 * app never rebuilds Xray's config messages itself. Only the group's traffic notices: connections
 * through `proxy` never pass the swapped handlers. Connections already on the old pick end with it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OutboundSwapOptions {
  /** The running core's binary (Xray). */
  corePath: string;
  /** Its API inbound, "127.0.0.1:PORT" (loopback only). */
  apiAddress: string;
  /** Where the request file (it holds credentials) is written, 0600, and removed after. */
  runtimeDir: string;
  timeoutMs?: number;
}

export class XrayOutboundSwap {
  constructor(private readonly options: OutboundSwapOptions) {}

  /**
   * Puts `outbounds` in place of the handlers tagged `oldTags` (absent ones are no error: a first
   * pick after none, or a front the old pick did not have).
   */
  async replace(oldTags: readonly string[], outbounds: readonly Record<string, unknown>[]): Promise<void> {
    for (const tag of oldTags) {
      await this.api(['rmo', tag]).catch((error: unknown) => {
        if (!/not found|not exist/i.test(String(error))) throw error;
      });
    }
    const file = join(this.options.runtimeDir, `group-swap-${randomBytes(6).toString('hex')}.json`);
    await writeFile(file, JSON.stringify({ outbounds }), { mode: 0o600 });
    try {
      await this.api(['ado', file]);
    } finally {
      await rm(file, { force: true });
    }
  }

  private api(args: string[]): Promise<string> {
    const timeoutMs = this.options.timeoutMs ?? 3000;
    const seconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
    const [command, ...rest] = args as [string, ...string[]];
    return new Promise((resolve, reject) => {
      execFile(this.options.corePath, ['api', command, `--server=${this.options.apiAddress}`, `-t`, seconds, ...rest], { timeout: timeoutMs + 1000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`xray api ${command} failed: ${(stderr || stdout || error.message).trim().split('\n').slice(-1)[0]}`));
        else resolve(stdout);
      });
    });
  }
}
