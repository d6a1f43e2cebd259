import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FIRST_FORMAT } from '../storage/format';
import { JsonFile } from '../storage/json-file';

/**
 * What system-wide mode applied, written before the first rule goes in and removed once the last
 * is out. Found at start, it means the last run ended without cleaning up and nothing else did
 * either (the helper or the TUN watchdog normally does when the app dies): the start-up removes
 * the capture first.
 */
export const captureRecordSchema = z
  .object({
    version: z.literal(1),
    appliedAt: z.number(),
    /** `tun`: sing-box's TUN device (Windows, macOS, and Linux's other capture), its pids in the runtime folder's pid files. */
    method: z.enum(['tproxy', 'redirect', 'tun']),
    /** The core inbound traffic was sent to (the transparent one; the SOCKS5 one for `tun`). */
    port: z.number().int(),
    /** The helper that was holding it (its watchdog), for the log. */
    helperPid: z.number().int().nullable(),
  })
  .strict();
export type CaptureRecord = z.infer<typeof captureRecordSchema>;

export const CAPTURE_RECORD_FILE = 'system-wide.json';

export class CaptureRecordFile {
  private readonly file: JsonFile<CaptureRecord | null>;

  constructor(dataDir: string) {
    this.file = new JsonFile<CaptureRecord | null>({ path: join(dataDir, CAPTURE_RECORD_FILE), schema: captureRecordSchema.nullable(), format: FIRST_FORMAT, fallback: () => null, mode: 0o600 });
  }

  get path(): string {
    return this.file.path;
  }

  /** The record a previous run left, or null; an unreadable one counts as present (clean up anyway). */
  async read(): Promise<{ record: CaptureRecord | null; unreadable: boolean }> {
    const loaded = await this.file.load();
    return { record: loaded.value, unreadable: loaded.problem !== null };
  }

  save(record: CaptureRecord): Promise<void> {
    return this.file.save(record);
  }

  async clear(): Promise<void> {
    for (const path of [this.file.path, this.file.backupPath]) {
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }
}
