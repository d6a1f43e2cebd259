/**
 * The kill switch on Linux, the app's side: it keeps the helper's nftables table
 * (policy/kill-switch-rules.ts) in step with the servers Auto may use, and a record of it in the
 * data folder. Unlike system-wide mode's capture, nothing here undoes it by itself: a disconnect,
 * quitting, a crash, `kill -9` of the app or of the helper all leave the rules in force, and the
 * record tells the next start that they are (in words, with the way to turn it off). Only `off()`
 * — the user's choice in the app, or `npm run cli -- kill-switch off` — removes it.
 *
 * Servers given by name are resolved here before their addresses go into the list; a name that
 * cannot be resolved (the kill switch itself blocks the lookup once it is on, unless the resolver
 * is on the LAN and the LAN is allowed) keeps the addresses it had.
 */
import { lookup } from 'node:dns/promises';
import { spawn } from 'node:child_process';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { parseIpv4, parseIpv6 } from '../../../shared/cidr';
import type { Logger } from '../../log/logger';
import { SerialQueue } from '../../process/serial-queue';
import { FIRST_FORMAT } from '../../storage/format';
import { JsonFile } from '../../storage/json-file';
import type { ProblemSink } from '../../storage/problem-sink';
import { HelperClient } from '../linux/helper-client';
import type { HelperMode, LaunchCommand } from '../linux/policy/elevation';

const TAG = 'KILLSWITCH';

export const killSwitchRecordSchema = z
  .object({
    version: z.literal(1),
    /** When it was first turned on (ms since the epoch). */
    since: z.number(),
    /** The addresses in force, and the names they came from (kept when a name cannot be resolved again). */
    addresses: z.array(z.string().max(64)).max(4096),
    resolved: z.record(z.string(), z.array(z.string().max(64))),
    allowLan: z.boolean(),
  })
  .strict();
export type KillSwitchRecord = z.infer<typeof killSwitchRecordSchema>;

export const KILL_SWITCH_RECORD_FILE = 'kill-switch.json';

export type Resolver = (name: string) => Promise<string[]>;

const systemResolver: Resolver = async (name) => (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);

export interface KillSwitchOptions {
  dataDir: string;
  logger: Logger;
  /** How the helper is started (root directly, else pkexec). */
  launch: (mode: HelperMode) => LaunchCommand;
  /** Host names to addresses (default: the system's resolver, 3 s at most per name). */
  resolve?: Resolver;
  /** Where a failed save of the record is put for the user. */
  problems?: ProblemSink;
}

export interface KillSwitchState {
  on: boolean;
  since: number | null;
  addresses: readonly string[];
  allowLan: boolean;
}

const isAddress = (text: string) => parseIpv4(text) !== null || parseIpv6(text) !== null;

export class KillSwitch {
  private readonly file: JsonFile<KillSwitchRecord | null>;
  private readonly queue = new SerialQueue();
  private helper: HelperClient | null = null;
  private record: KillSwitchRecord | null = null;

  constructor(private readonly options: KillSwitchOptions) {
    this.file = new JsonFile({ path: join(options.dataDir, KILL_SWITCH_RECORD_FILE), schema: killSwitchRecordSchema.nullable(), format: FIRST_FORMAT, fallback: () => null, mode: 0o600, problems: options.problems });
  }

  /**
   * Reads what an earlier run left. Returns the sentence to show when the kill switch is still in
   * force from then (after a crash, a quit, a restart of the machine: by design), else null.
   */
  async load(): Promise<string | null> {
    const loaded = await this.file.load();
    this.record = loaded.value;
    if (loaded.problem !== null && !loaded.value) {
      return 'The kill switch record could not be read; the kill switch may still be in force. Turn it off to be sure direct traffic works.';
    }
    if (!this.record) return null;
    return `The kill switch is still on since ${new Date(this.record.since).toISOString()}: nothing leaves this machine outside the tunnel until you turn it off.`;
  }

  state(): KillSwitchState {
    return { on: this.record !== null, since: this.record?.since ?? null, addresses: this.record?.addresses ?? [], allowLan: this.record?.allowLan ?? false };
  }

  /**
   * Turns it on, or brings its list up to date: every server Auto may switch to, so that a switch
   * never waits for a change of rules. The rules are replaced in one transaction.
   */
  engage(servers: readonly { address: string }[], allowLan: boolean): Promise<KillSwitchState> {
    return this.queue.run(async () => {
      const { addresses, resolved } = await this.addressesOf(servers);
      const unchanged = this.record && this.record.allowLan === allowLan && sameList(this.record.addresses, addresses) && this.helper?.alive;
      if (unchanged) return this.state();
      const helper = await this.openHelper();
      const reply = await helper.request({ op: 'kill-switch-on', plan: { servers: addresses, allowLan } });
      if (!reply.ok) throw new Error(`the kill switch could not be put in force: ${reply.error}`);
      this.record = { version: 1, since: this.record?.since ?? Date.now(), addresses, resolved, allowLan };
      await this.file.save(this.record);
      this.options.logger.info(TAG, reply.detail);
      return this.state();
    });
  }

  /** The user turned it off: the rules go, and direct traffic works again at once. */
  off(): Promise<void> {
    return this.queue.run(async () => {
      const helper = this.helper?.alive ? this.helper : null;
      const reply = helper ? await helper.request({ op: 'kill-switch-off' }) : await this.oneShotOff();
      if (!reply.ok) throw new Error(`the kill switch could not be turned off: ${reply.error}`);
      this.record = null;
      for (const path of [this.file.path, this.file.backupPath]) {
        await unlink(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      }
      this.options.logger.info(TAG, 'kill switch off');
    });
  }

  /** The app is stopping: the helper session ends, the rules stay in force. */
  close(): Promise<void> {
    return this.queue.run(async () => {
      const helper = this.helper;
      this.helper = null;
      if (helper?.alive) await helper.end();
    });
  }

  private async addressesOf(servers: readonly { address: string }[]): Promise<{ addresses: string[]; resolved: Record<string, string[]> }> {
    const addresses: string[] = [];
    const resolved: Record<string, string[]> = {};
    const add = (address: string) => {
      if (!addresses.includes(address)) addresses.push(address);
    };
    const names = [...new Set(servers.map((s) => s.address.replace(/^\[|\]$/g, '')))];
    for (const name of names) {
      if (isAddress(name)) {
        add(name);
        continue;
      }
      const known = this.record?.resolved[name] ?? [];
      const fresh = await withTimeout((this.options.resolve ?? systemResolver)(name), 3000).catch(() => null);
      const usable = (fresh ?? []).filter(isAddress);
      if (usable.length === 0) this.options.logger.warn(TAG, `could not resolve a server's name${known.length > 0 ? '; keeping the addresses it had' : '; it stays blocked'}`);
      resolved[name] = usable.length > 0 ? usable : known;
      resolved[name].forEach(add);
    }
    return { addresses, resolved };
  }

  private async openHelper(): Promise<HelperClient> {
    if (this.helper?.alive) return this.helper;
    this.helper = await HelperClient.start(this.options.launch('session'), this.options.logger);
    return this.helper;
  }

  private oneShotOff(): Promise<{ ok: true; detail: string } | { ok: false; error: string }> {
    const { file, args } = this.options.launch('kill-switch-off');
    return new Promise((resolve) => {
      const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-1000)));
      child.once('error', (error) => resolve({ ok: false, error: error.message }));
      child.once('close', (code) => resolve(code === 0 ? { ok: true, detail: 'kill switch off' } : { ok: false, error: stderr.trim() || `helper exit ${String(code)}` }));
    });
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
